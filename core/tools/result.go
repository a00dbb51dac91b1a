package tools

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
)

// SanitizeResult removes hidden characters from the text a tool returned,
// in place, before a person or a model reads it. Images, audio and binary
// resources pass unchanged: they are not read as text.
func SanitizeResult(r *mcp.CallToolResult) {
	if r == nil {
		return
	}
	for i, c := range r.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			c.Text = sanitize.String(c.Text)
			r.Content[i] = c
		case *mcp.TextContent:
			c.Text = sanitize.String(c.Text)
		case mcp.EmbeddedResource:
			r.Content[i] = sanitizeEmbedded(c)
		case *mcp.EmbeddedResource:
			*c = sanitizeEmbedded(*c)
		}
	}
}

func sanitizeEmbedded(e mcp.EmbeddedResource) mcp.EmbeddedResource {
	switch rc := e.Resource.(type) {
	case mcp.TextResourceContents:
		rc.Text = sanitize.String(rc.Text)
		e.Resource = rc
	case *mcp.TextResourceContents:
		rc.Text = sanitize.String(rc.Text)
	}
	return e
}
