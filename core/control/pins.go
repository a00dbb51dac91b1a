package control

import (
	"context"
	"net/http"

	"github.com/mcptray/mcptray/core/service"
)

type acceptRequest struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools,omitempty"`
}

type acceptChangesRequest struct {
	Name string `json:"name"`
	On   bool   `json:"on"`
}

// AcceptTools pins what a server's held tools say now, so that apps are
// offered them: those named, or all when tools is empty.
func (c *Client) AcceptTools(ctx context.Context, server string, tools []string) (service.Server, error) {
	var sv service.Server
	err := c.do(ctx, http.MethodPost, "pins/accept", acceptRequest{Name: server, Tools: tools}, &sv)
	return sv, err
}

// KeepHeld keeps a server's held tools held, as the person decided: those
// named, or all when tools is empty.
func (c *Client) KeepHeld(ctx context.Context, server string, tools []string) (service.Server, error) {
	var sv service.Server
	err := c.do(ctx, http.MethodPost, "pins/keep", acceptRequest{Name: server, Tools: tools}, &sv)
	return sv, err
}

// SetAcceptChanges turns a server's "Accept changes from this server" on
// or off.
func (c *Client) SetAcceptChanges(ctx context.Context, server string, on bool) error {
	return c.do(ctx, http.MethodPost, "pins/accept-changes", acceptChangesRequest{Name: server, On: on}, nil)
}

// LookAtTools runs a server that waits for approval once, in its sandbox,
// and returns its tools and what reads as orders in them; nothing is
// approved.
func (c *Client) LookAtTools(ctx context.Context, server string) (service.Look, error) {
	var l service.Look
	err := c.do(ctx, http.MethodPost, "pins/look", nameRequest{server}, &l)
	return l, err
}
