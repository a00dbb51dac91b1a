package conn

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// elicitHandler passes a server's request for information to the app whose
// call caused it, when that app can answer (a Caller with Elicit), or else to
// the front end's ElicitFunc, with the message sanitised: it will be shown
// to a person.
type elicitHandler struct {
	m      *Manager
	server string
}

func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	req.Params.Message = sanitize.String(req.Params.Message)
	if c := h.m.calls.callerFor(ctx, h.server); c != nil && c.Elicit != nil {
		res, err := c.Elicit(ctx, req)
		if !errors.Is(err, ErrCallerCannot) {
			return res, err
		}
	}
	if h.m.opts.Elicit != nil {
		return h.m.opts.Elicit(ctx, h.server, req)
	}
	return AcceptDefaults(req), nil
}

// AcceptDefaults answers an elicitation with the defaults its schema gives,
// for when nobody can be asked. A URL-mode request, which needs a person to
// open a page, is declined.
func AcceptDefaults(req mcp.ElicitationRequest) *mcp.ElicitationResult {
	if req.Params.Mode == mcp.ElicitationModeURL {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action:  mcp.ElicitationResponseActionAccept,
		Content: SchemaDefaults(req.Params.RequestedSchema),
	}}
}

// SchemaDefaults returns the "default" of every property of a requested
// schema that has one.
func SchemaDefaults(schema any) map[string]any {
	out := map[string]any{}
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if p, ok := p.(map[string]any); ok {
			if d, ok := p["default"]; ok {
				out[name] = d
			}
		}
	}
	return out
}

// rootsHandler answers roots/list with the server's folder: a server from a
// project sees that project, and nothing else. A server with no folder of
// its own sees the roots of the app whose call it is serving, when that app
// can tell them (a Caller with Roots), and else none.
type rootsHandler struct {
	m      *Manager
	server *config.Server
}

func (h rootsHandler) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	dir := cmp.Or(h.server.Origin.Folder, h.server.Cwd)
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	if dir != "" {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		res.Roots = append(res.Roots, mcp.Root{URI: u.String(), Name: filepath.Base(dir)})
		return res, nil
	}
	if c := h.m.calls.callerFor(ctx, h.server.Name); c != nil && c.Roots != nil {
		app, err := c.Roots(ctx, req)
		if !errors.Is(err, ErrCallerCannot) {
			if err == nil && app != nil && app.Roots == nil {
				app.Roots = []mcp.Root{} // "roots": [], never null
			}
			return app, err
		}
	}
	return res, nil
}
