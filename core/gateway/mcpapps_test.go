package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestGatewayMCPApps: two servers with an MCP App whose views have the
// same ui:// URI (one lists its view, the other does not), through both
// faces. The gateway declares the extension; each tool names its own
// server's view, in a form of its server's; each view reads as its
// server's, with its _meta; a call's result keeps its _meta.
func TestGatewayMCPApps(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, map[string]any{
		"one": map[string]any{"command": testServerBin, "args": []string{"-name", "one", "-app"}},
		"two": map[string]any{"command": testServerBin, "args": []string{"-name", "two", "-app-unlisted"}},
	}, map[string]any{"permissions": map[string]string{"mcp__one__show_app": "allow"}})
	r.waitTool("mcp__one__show_app")
	r.waitTool("mcp__two__show_app")
	stream, _ := r.streamClient("apps-test")
	for face, c := range map[string]*client.Client{"http": r.client(), "stdio": stream} {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		ext, _ := c.GetServerCapabilities().Extensions[mcpserver.AppExtension].(map[string]any)
		if types, _ := ext["mimeTypes"].([]any); len(types) != 1 || types[0] != mcpserver.AppMIMEType {
			t.Errorf("%s: initialize declares %v, want the extension %s with %s", face, c.GetServerCapabilities().Extensions, mcpserver.AppExtension, mcpserver.AppMIMEType)
		}
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		views := map[string]string{}
		for _, tool := range list.Tools {
			if strings.HasSuffix(tool.Name, "__show_app") {
				if tool.Meta == nil {
					t.Errorf("%s: %s is listed without its _meta", face, tool.Name)
					continue
				}
				ui, _ := tool.Meta.AdditionalFields["ui"].(map[string]any)
				views[tool.Name], _ = ui["resourceUri"].(string)
			}
		}
		want := map[string]string{"mcp__one__show_app": "ui://one/testserver/view", "mcp__two__show_app": "ui://two/testserver/view"}
		for name, uri := range want {
			if views[name] != uri {
				t.Errorf("%s: %s names the view %q, want %q", face, name, views[name], uri)
			}
		}
		for name, uri := range want {
			server := strings.TrimSuffix(strings.TrimPrefix(name, "mcp__"), "__show_app")
			read := mcp.ReadResourceRequest{}
			read.Params.URI = uri
			got, err := c.ReadResource(ctx, read)
			if err != nil {
				t.Errorf("%s: resources/read %s: %v", face, uri, err)
				continue
			}
			text, _ := got.Contents[0].(mcp.TextResourceContents)
			if len(got.Contents) != 1 || text.URI != uri || text.MIMEType != mcpserver.AppMIMEType ||
				!strings.Contains(text.Text, "an MCP App of "+server+"<") || text.Meta["ui"] == nil {
				t.Errorf("%s: resources/read %s = %+v, want %s's view under that URI with its _meta", face, uri, got.Contents, server)
			}
		}
		resources, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]string{}
		for _, res := range resources.Resources {
			listed[res.URI] = res.MIMEType
		}
		for _, uri := range want {
			if listed[uri] != mcpserver.AppMIMEType {
				t.Errorf("%s: resources/list has %v, want the view %s", face, listed, uri)
			}
		}
		call := mcp.CallToolRequest{}
		call.Params.Name = "mcp__one__show_app"
		res, err := c.CallTool(ctx, call)
		if err != nil {
			t.Fatal(err)
		}
		if res.Meta == nil || res.Meta.AdditionalFields["server"] != "one" {
			t.Errorf("%s: the call's result lost its _meta: %+v", face, res)
		}
	}
}

// TestServerURI: the forms a server's URIs are shown in are its own, and
// no URI a server chose can be one of them.
func TestServerURI(t *testing.T) {
	for _, c := range []struct{ server, uri, want string }{
		{"one", "ui://testserver/view", "ui://one/testserver/view"},
		{"one", "UI://view", "ui://one/view"},
		{"a/b", "ui://view", "ui://a%2Fb/view"},
		{"b", "test://greeting", "mcptray://b/test://greeting"},
	} {
		if got := serverURI(c.server, c.uri); got != c.want {
			t.Errorf("serverURI(%q, %q) = %q, want %q", c.server, c.uri, got, c.want)
		}
	}
	for uri, want := range map[string]bool{"ui://x": true, "Ui://x": true, "mcptray://b/x": true, "MCPTRAY://x": true, "test://x": false, "file:///ui://x": false} {
		if got := alwaysOwn(uri); got != want {
			t.Errorf("alwaysOwn(%q) = %v, want %v", uri, got, want)
		}
	}
}
