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
// token, and the server's requests during the call go to the app when it
// declared it can answer them: questions (else to mcptray's own window, as
// without the gateway), roots/list (for a server with no folder of its own:
// a server from a project sees that project's folder, whichever app calls
// it) and requests to the AI model (else to mcptray's window, or refused).
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
	if _, ok := s.(server.SessionWithRoots); ok && caps.Roots != nil {
		c.Roots = func(_ context.Context, r mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			res, err := g.mcp.RequestRoots(ctx, r)
			return res, cannot(err)
		}
	}
	if _, ok := s.(server.SessionWithSampling); ok && caps.Sampling != nil {
		c.Sample = func(_ context.Context, r mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			// Deprecated in revision 2026-07-28 with sampling itself; an app
			// that declared sampling speaks an earlier one.
			res, err := g.mcp.RequestSampling(ctx, r)
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
		errors.Is(err, server.ErrRootsNotSupported) ||
		errors.Is(err, server.ErrNoActiveSession) || errors.Is(err, server.ErrNoClientSession) {
		return fmt.Errorf("%w: %v", conn.ErrCallerCannot, err)
	}
	return err
}
