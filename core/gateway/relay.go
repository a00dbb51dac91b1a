package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/conn"
)

// caller is the app behind one tools/call, for the call to its server:
// the server's progress goes to the app when the app gave a progress
// token, and the server's questions during the call go to the app when it
// declared it can answer them (else to mcptray's own window, as without
// the gateway). roots/list is not passed on: a server from a project sees
// that project's folder, whichever app calls it.
func (g *Gateway) caller(ctx context.Context, req mcp.CallToolRequest) *conn.Caller {
	c := &conn.Caller{}
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		token := req.Params.Meta.ProgressToken
		c.Progress = func(p mcp.ProgressNotificationParams) {
			params := map[string]any{"progressToken": token, "progress": p.Progress}
			if p.Total != 0 {
				params["total"] = p.Total
			}
			if p.Message != "" {
				params["message"] = p.Message
			}
			if err := g.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params); err != nil {
				g.log.Debug("gateway: passing progress on", "err", err)
			}
		}
	}
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return c
	}
	caps := s.GetClientCapabilities()
	if caps.Elicitation != nil {
		urls := caps.Elicitation.URL != nil
		c.Elicit = func(_ context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			if r.Params.Mode == mcp.ElicitationModeURL && !urls {
				return nil, fmt.Errorf("%w: it opens no pages for servers", conn.ErrCallerCannot)
			}
			res, err := g.mcp.RequestElicitation(ctx, r)
			return res, cannot(err)
		}
	}
	return c
}

// cannot marks the errors that say the app's session cannot take a
// server's request at all (it speaks a protocol where the gateway would
// have to answer input_required), so that the request goes elsewhere.
func cannot(err error) error {
	if errors.Is(err, server.ErrServerInitiatedRequestUnsupported) || errors.Is(err, server.ErrElicitationNotSupported) ||
		errors.Is(err, server.ErrNoActiveSession) {
		return fmt.Errorf("%w: %v", conn.ErrCallerCannot, err)
	}
	return err
}
