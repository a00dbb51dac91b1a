package tools

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestSanitizeResult(t *testing.T) {
	t.Parallel()
	ptr := &mcp.TextContent{Type: "text", Text: "po\u200binter"}
	r := &mcp.CallToolResult{Content: []mcp.Content{
		mcp.TextContent{Type: "text", Text: "rm -rf \u202e/ etc"},
		ptr,
		mcp.ImageContent{Type: "image", Data: "\u200b", MIMEType: "image/png"},
		mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "x:", Text: "a\u2066b"}},
	}}
	SanitizeResult(r)
	if got := r.Content[0].(mcp.TextContent).Text; got != "rm -rf / etc" {
		t.Errorf("text = %q", got)
	}
	if ptr.Text != "pointer" {
		t.Errorf("pointer text = %q", ptr.Text)
	}
	if got := r.Content[2].(mcp.ImageContent).Data; got != "\u200b" {
		t.Errorf("image data changed: %q", got)
	}
	if got := r.Content[3].(mcp.EmbeddedResource).Resource.(mcp.TextResourceContents).Text; got != "ab" {
		t.Errorf("embedded text = %q", got)
	}
	SanitizeResult(nil) // must not panic
}
