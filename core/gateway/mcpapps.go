package gateway

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/tools"
)

// MCP Apps (the io.modelcontextprotocol/ui extension, SEP-1865) through
// the gateway. A server's tool names its view in _meta.ui.resourceUri: a
// ui:// resource of type text/html;profile=mcp-app, which the app reads
// with resources/read. Tools' _meta, resources' and their contents' _meta,
// and results' _meta pass through unchanged, but for the views' URIs:
// servers pick short ones (ui://dashboard), which collide between servers,
// so every ui:// URI is shown in a form of its own server's,
// ui://SERVER/REST for ui://REST, in resources/list, in resources/read's
// contents and in the tools' _meta alike, and resources/read goes to that
// server with its own URI. Any other URI that two servers share is the
// first server's (in the config's order) as it is, so that what tool
// results name still reads; the others' are mcptray://SERVER/URI. Nothing
// on the way of a call changes: a URI inside a tool's result is the
// server's.
//
// The gateway declares the extension to apps when a server it offers has a
// view (or while servers are still starting, and nothing is known yet),
// and declares it to the servers for them to name their views
// (conn.AppsExtension).

// uiScheme is the views' URI scheme; ownScheme is the gateway's, for the
// URIs that two servers share.
const (
	uiScheme  = "ui://"
	ownScheme = "mcptray://"
)

// hasScheme says whether uri begins with scheme, in any case.
func hasScheme(uri, scheme string) bool {
	return len(uri) >= len(scheme) && strings.EqualFold(uri[:len(scheme)], scheme)
}

// alwaysOwn says whether uri is always shown in its server's form: a view,
// or one in the gateway's own scheme, so that no URI a server chose can
// be one the gateway made.
func alwaysOwn(uri string) bool { return hasScheme(uri, uiScheme) || hasScheme(uri, ownScheme) }

// serverURI is server's uri as apps see it when it must be told apart:
// ui://SERVER/REST for a view, mcptray://SERVER/URI for any other. Server
// names hold no '/' once escaped, so no two servers' forms are the same.
func serverURI(server, uri string) string {
	if hasScheme(uri, uiScheme) {
		return uiScheme + url.PathEscape(server) + "/" + uri[len(uiScheme):]
	}
	return ownScheme + url.PathEscape(server) + "/" + uri
}

// toolMeta is a tool's _meta as the gateway lists it: the server's, with
// the view it names (ui.resourceUri, and the older flat ui/resourceUri)
// in its server's form; nil when it has none or it is not an object.
func toolMeta(t tools.Tool) *mcp.Meta {
	if len(t.Meta) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(t.Meta, &m) != nil || m == nil {
		return nil
	}
	if ui, ok := m["ui"].(map[string]any); ok {
		if uri, ok := ui["resourceUri"].(string); ok && hasScheme(uri, uiScheme) {
			ui["resourceUri"] = serverURI(t.Server, uri)
		}
	}
	if uri, ok := m["ui/resourceUri"].(string); ok && hasScheme(uri, uiScheme) {
		m["ui/resourceUri"] = serverURI(t.Server, uri)
	}
	return mcp.NewMetaFromMap(m)
}

// views are the ui:// URIs that a server's tools name, as the server
// spells them, in the order of its tools.
func views(list []tools.Tool) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range list {
		if len(t.Meta) == 0 {
			continue
		}
		var m struct {
			UI struct {
				ResourceURI string `json:"resourceUri"`
			} `json:"ui"`
			Flat string `json:"ui/resourceUri"`
		}
		if json.Unmarshal(t.Meta, &m) != nil {
			continue
		}
		for _, uri := range []string{m.UI.ResourceURI, m.Flat} {
			if hasScheme(uri, uiScheme) && !seen[uri] {
				seen[uri] = true
				out = append(out, uri)
			}
		}
	}
	return out
}

// shownContents is contents, a server's answer to resources/read of own,
// with own in the form apps know it by, shown.
func shownContents(contents []mcp.ResourceContents, own, shown string) []mcp.ResourceContents {
	if own == shown {
		return contents
	}
	for i, c := range contents {
		switch c := c.(type) {
		case mcp.TextResourceContents:
			if c.URI == own {
				c.URI = shown
				contents[i] = c
			}
		case mcp.BlobResourceContents:
			if c.URI == own {
				c.URI = shown
				contents[i] = c
			}
		}
	}
	return contents
}

// declareApps is mcp-go's hook after initialize: the gateway declares the
// MCP Apps extension when a server it offers has a view, or while servers
// are still starting.
func (g *Gateway) declareApps(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
	if res == nil {
		return
	}
	if !g.offersApps.Load() {
		select {
		case <-g.warm.done():
			return // all started, and none has a view
		default:
		}
	}
	ext := map[string]any{}
	for k, v := range res.Capabilities.Extensions {
		ext[k] = v
	}
	ext[conn.AppsExtension] = map[string]any{"mimeTypes": []string{conn.AppsMIMEType}}
	res.Capabilities.Extensions = ext
}
