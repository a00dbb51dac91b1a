package tools

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
)

// SanitizeResult removes hidden characters from the text a tool returned,
// in place, before a person or a model reads it: its text, the MIME types
// and links it names, and every string in its structured content. The
// bytes of images, audio and binary resources pass unchanged: they are not
// read as text.
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
		case mcp.ImageContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
			r.Content[i] = c
		case *mcp.ImageContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
		case mcp.AudioContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
			r.Content[i] = c
		case *mcp.AudioContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
		case mcp.ResourceLink:
			c.URI, c.Name, c.MIMEType = sanitize.Line(c.URI), sanitize.Line(c.Name), sanitize.Line(c.MIMEType)
			r.Content[i] = c
		}
	}
	r.StructuredContent = sanitizeValue(r.StructuredContent)
}

// sanitizeValue sanitises every string in a decoded JSON value, keys too.
func sanitizeValue(v any) any {
	switch v := v.(type) {
	case string:
		return sanitize.String(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[sanitize.Line(k)] = sanitizeValue(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = sanitizeValue(x)
		}
		return v
	}
	return v
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
