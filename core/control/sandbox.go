package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
)

type sandboxSwitch struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
}

// SandboxOf says what a local server may do, with its full policy.
func (c *Client) SandboxOf(ctx context.Context, name string) (service.Sandbox, error) {
	var r service.Sandbox
	err := c.do(ctx, http.MethodPost, "sandbox/show", nameRequest{name}, &r)
	return r, err
}

// ChangeSandbox allows a server more, or takes back what was allowed.
func (c *Client) ChangeSandbox(ctx context.Context, ch service.SandboxChange) error {
	return c.do(ctx, http.MethodPost, "sandbox/change", ch, nil)
}

// SetSandbox turns a server's sandbox on or off.
func (c *Client) SetSandbox(ctx context.Context, name string, on bool) error {
	return c.do(ctx, http.MethodPost, "sandbox/switch", sandboxSwitch{Name: name, On: on}, nil)
}

// CheckSandbox runs the sandbox's check on this computer, in the running
// mcptray, and returns what held.
func (c *Client) CheckSandbox(ctx context.Context) (sandbox.Report, error) {
	var r sandbox.Report
	err := c.do(ctx, http.MethodPost, "sandbox/check", struct{}{}, &r)
	return r, err
}

// LastSandboxCheck is the last check on this computer, or nil.
func (c *Client) LastSandboxCheck(ctx context.Context) (*sandbox.Report, error) {
	var r *sandbox.Report
	err := c.do(ctx, http.MethodPost, "sandbox/last-check", struct{}{}, &r)
	return r, err
}
