package host

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
)

// asker hands servers' questions to the window through the control
// endpoint. The service starts its servers before the endpoint exists, so
// a question asked before then is answered with its defaults.
type asker struct {
	mu  sync.Mutex
	srv *control.Server
}

// ask is the service's Options.Elicit.
func (a *asker) ask(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	srv := a.srv
	a.mu.Unlock()
	if srv == nil {
		return conn.AcceptDefaults(req), nil
	}
	return srv.Ask(ctx, server, req)
}

// askPermission is the gateway's Options.Ask: the window asks the person
// whether an app's call may go ahead. Before the endpoint serves there is
// no window to ask in.
func (a *asker) askPermission(ctx context.Context, q gateway.Question) (bool, error) {
	a.mu.Lock()
	srv := a.srv
	a.mu.Unlock()
	if srv == nil {
		return false, gateway.ErrNoWindow
	}
	return srv.AskPermission(ctx, q)
}

// serve routes questions to srv from now on.
func (a *asker) serve(srv *control.Server) {
	a.mu.Lock()
	a.srv = srv
	a.mu.Unlock()
}
