package tools

import (
	"encoding/json"
	"strings"
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

// TestSanitizeResultEverywhere: a hostile server's escapes are gone from
// MIME types, links and structured content too, where a front end prints
// them as text.
func TestSanitizeResultEverywhere(t *testing.T) {
	t.Parallel()
	r := &mcp.CallToolResult{
		Content: []mcp.Content{
			mcp.ImageContent{Type: "image", MIMEType: "image/png\x1b]0;owned\x07", Data: "AAAA"},
			mcp.AudioContent{Type: "audio", MIMEType: "audio/wav\u009b31m", Data: "AAAA"},
			mcp.ResourceLink{Type: "resource_link", URI: "file:///x\u202etxt.exe", Name: "x"},
		},
		StructuredContent: map[string]any{"note\u200b": "ok\u009b2J", "list": []any{"a\x1b[31m", 3.0}},
	}
	SanitizeResult(r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\u200b", `\u001b`, `\u009b`, `\u202e`, `\u200b`} {
		if strings.Contains(string(b), bad) {
			t.Errorf("%q survived sanitising: %s", bad, b)
		}
	}
	if img := r.Content[0].(mcp.ImageContent); !strings.HasPrefix(img.MIMEType, "image/png") || img.Data != "AAAA" {
		t.Errorf("the image became %+v", img)
	}
	if got := r.StructuredContent.(map[string]any)["list"].([]any)[1]; got != 3.0 {
		t.Errorf("a number in structured content became %v", got)
	}
}
