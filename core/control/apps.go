package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

type appsResponse struct {
	Apps []service.App `json:"apps"`
}

type permissionRequest struct {
	Tool       string             `json:"tool"`
	Permission service.Permission `json:"permission"`
}

type guardModeRequest struct {
	Mode service.GuardMode `json:"mode"`
}

type guardLabelsRequest struct {
	Tool   string              `json:"tool"`
	Change service.LabelChange `json:"change"`
	Reset  bool                `json:"reset,omitempty"`
}

type searchRequest struct {
	On bool `json:"on"`
}

type hiddenRequest struct {
	Target string `json:"target"`
	Hidden bool   `json:"hidden"`
}

// tokenResponse carries the gateway's token; only the person's own
// processes reach the socket, and nothing here logs a body.
type tokenResponse struct {
	Token string `json:"token"`
}

// Apps returns the AI apps on this computer and how each stands with the
// gateway.
func (c *Client) Apps(ctx context.Context) ([]service.App, error) {
	var r appsResponse
	err := c.do(ctx, http.MethodGet, "apps", nil, &r)
	return r.Apps, err
}

// ConnectApp writes the gateway into an app's config.
func (c *Client) ConnectApp(ctx context.Context, req service.ConnectRequest) (service.ConnectResult, error) {
	var r service.ConnectResult
	err := c.do(ctx, http.MethodPost, "apps/connect", req, &r)
	return r, err
}

// DisconnectApp takes the gateway out of an app's config.
func (c *Client) DisconnectApp(ctx context.Context, app string) (service.ConnectResult, error) {
	var r service.ConnectResult
	err := c.do(ctx, http.MethodPost, "apps/disconnect", nameRequest{app}, &r)
	return r, err
}

// SetPermission sets a tool's permission; "" resets it.
func (c *Client) SetPermission(ctx context.Context, tool string, p service.Permission) error {
	return c.do(ctx, http.MethodPost, "gateway/permission", permissionRequest{Tool: tool, Permission: p}, nil)
}

// SetHidden hides a tool or a server's tools from the apps, or shows them.
func (c *Client) SetHidden(ctx context.Context, target string, hidden bool) error {
	return c.do(ctx, http.MethodPost, "gateway/hidden", hiddenRequest{Target: target, Hidden: hidden}, nil)
}

// SetSearch turns the gateway's search mode on or off.
func (c *Client) SetSearch(ctx context.Context, on bool) error {
	return c.do(ctx, http.MethodPost, "gateway/search", searchRequest{On: on}, nil)
}

// SetGuardMode sets how strict the gateway's flow guard is.
func (c *Client) SetGuardMode(ctx context.Context, m service.GuardMode) error {
	return c.do(ctx, http.MethodPost, "gateway/guard/mode", guardModeRequest{Mode: m}, nil)
}

// SetGuardLabels corrects a tool's labels.
func (c *Client) SetGuardLabels(ctx context.Context, tool string, ch service.LabelChange, reset bool) error {
	return c.do(ctx, http.MethodPost, "gateway/guard/labels", guardLabelsRequest{Tool: tool, Change: ch, Reset: reset}, nil)
}

// GatewayToken returns the gateway's token from the keychain.
func (c *Client) GatewayToken(ctx context.Context) (string, error) {
	var r tokenResponse
	err := c.do(ctx, http.MethodGet, "gateway/token", nil, &r)
	return r.Token, err
}
