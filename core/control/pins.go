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

// pinRoutes serves POST /v1/pins/accept, /v1/pins/keep,
// /v1/pins/accept-changes and /v1/pins/look.
func (s *Endpoint) pinRoutes(mux *http.ServeMux) {
	pb := s.Backend
	handleJSON(mux, "pins/accept", func(ctx context.Context, req acceptRequest) (service.Server, error) {
		return pb.AcceptTools(ctx, req.Name, req.Tools)
	})
	handleJSON(mux, "pins/keep", func(ctx context.Context, req acceptRequest) (service.Server, error) {
		return pb.KeepHeld(ctx, req.Name, req.Tools)
	})
	handleJSON(mux, "pins/accept-changes", func(ctx context.Context, req acceptChangesRequest) (struct{}, error) {
		return struct{}{}, pb.SetAcceptChanges(ctx, req.Name, req.On)
	})
	handle(mux, "pins/look", pb.LookAtTools)
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
