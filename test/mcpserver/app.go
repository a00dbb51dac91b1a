package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The MCP App (Options.App): the io.modelcontextprotocol/ui extension
// (SEP-1865), as its reference servers offer it. A tool, show_app, names
// its view in _meta.ui.resourceUri; the view is a ui:// resource of type
// AppMIMEType whose contents carry their own _meta.ui. As the extension
// asks of servers, the tool names its view only to a client that declared
// the extension with that type; to any other it is a plain tool.

// AppExtension is the MCP Apps extension's identifier.
const AppExtension = "io.modelcontextprotocol/ui"

// AppMIMEType is the type of an MCP App's view.
const AppMIMEType = "text/html;profile=mcp-app"

// AppURI is the view's URI: the same for every test server, as short names
// chosen by servers are.
const AppURI = "ui://testserver/view"

// AppHTML is the view, with the server's name after it.
const AppHTML = "<!doctype html><html><body><p>an MCP App of "

// addApp gives s the MCP App, and has the server declare the extension.
func addApp(s *server.MCPServer, opts Options) {
	server.WithExtensions(map[string]any{AppExtension: map[string]any{"mimeTypes": []string{AppMIMEType}}})(s)
	tool := mcp.NewTool("show_app", mcp.WithDescription("Shows the server's MCP App."))
	tool.Meta = mcp.NewMetaFromMap(map[string]any{"ui": map[string]any{"resourceUri": AppURI}})
	s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("the app of " + opts.name())
		res.Meta = mcp.NewMetaFromMap(map[string]any{"server": opts.name()})
		return res, nil
	})
	if !opts.AppUnlisted {
		s.AddResource(mcp.NewResource(AppURI, "view", mcp.WithMIMEType(AppMIMEType)), readApp(opts))
	} else {
		// The extension lets a view be left out of resources/list: it
		// is read by the URI the tool names.
		s.AddResourceTemplate(mcp.NewResourceTemplate(AppURI, "view", mcp.WithTemplateMIMEType(AppMIMEType)),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return readApp(opts)(ctx, req)
			})
	}
}

func readApp(opts Options) server.ResourceHandlerFunc {
	return func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{
			URI: req.Params.URI, MIMEType: AppMIMEType, Text: AppHTML + opts.name() + "</p></body></html>",
			Meta: map[string]any{"ui": map[string]any{"prefersBorder": true}},
		}}, nil
	}
}

// appFilter leaves the view out of the tools of a client that did not
// declare the extension.
func appFilter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if declaresApps(ctx) {
		return tools
	}
	for i := range tools {
		if tools[i].Name == "show_app" {
			tools[i].Meta = nil
		}
	}
	return tools
}

// declaresApps says whether the client of ctx declared the extension with
// AppMIMEType.
func declaresApps(ctx context.Context) bool {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	ext, _ := s.GetClientCapabilities().Extensions[AppExtension].(map[string]any)
	types, _ := ext["mimeTypes"].([]any)
	for _, t := range types {
		if t == AppMIMEType {
			return true
		}
	}
	return false
}
