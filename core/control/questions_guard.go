package control

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
)

// KindGuard is the Kind of the flow guard's questions: an app's session
// read private data and untrusted content, and now wants to call a tool
// that can send data out; may it?
const KindGuard = "guard"

// GuardQuestion is the flow guard's question about one call, every text
// in it sanitised.
type GuardQuestion struct {
	// App is the calling app as people know it, or "".
	App string `json:"app,omitempty"`
	// Tool is the tool as apps see it (mcp__SERVER__TOOL); ServerTool is
	// the server's own name for it.
	Tool       string `json:"tool"`
	ServerTool string `json:"serverTool"`
	// Chain says how the session came to be held, in words: "Claude Code
	// read ~/notes/tax.txt through files, then read
	// https://example.com/issue/42 through fetch. It now wants to send
	// data through slack (to hooks.slack.com)."
	Chain string `json:"chain"`
	// Arguments are the held call's as indented JSON, cut short
	// (Truncated) when long.
	Arguments string `json:"arguments,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// GuardReply is the Answer to a guard question: allowed once, allowed
// for the rest of the app's session, or denied.
func GuardReply(a gateway.GuardAnswer) mcp.ElicitationResult {
	switch a {
	case gateway.GuardAllowOnce:
		return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}
	case gateway.GuardAllowSession:
		return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
			Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"session": true}}}
	}
	return mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}
}

// AskGuard asks the person, in the window, about a call the flow guard
// held. It is the gateway's GuardAskFunc. With no window following the
// questions it opens the window; with none to open it returns
// gateway.ErrNoWindow. It waits until the person answers or ctx ends (the
// gateway bounds it with its timeout).
func (s *Endpoint) AskGuard(ctx context.Context, q gateway.GuardQuestion) (gateway.GuardAnswer, error) {
	gq := &GuardQuestion{
		App:        sanitize.Line(q.App),
		Tool:       sanitize.Line(q.Tool),
		ServerTool: sanitize.Line(q.ServerTool),
		Chain:      sanitize.String(q.Chain),
	}
	gq.Arguments, gq.Truncated = showArguments(q.Arguments)
	h := s.questions()
	p, followed, _ := h.add(Question{
		Kind:   KindGuard,
		Server: q.Server,
		Params: mcp.ElicitationParams{Message: fmt.Sprintf("%s Allow it?", gq.Chain)},
		Guard:  gq,
	})
	defer h.remove(p.q.ID)
	if !followed {
		if s.OpenWindow == nil {
			return gateway.GuardDeny, gateway.ErrNoWindow
		}
		if err := s.OpenWindow(q.Server); err != nil {
			s.logger().Warn("no window to ask about a held call in", "tool", gq.Tool, "err", err)
			return gateway.GuardDeny, gateway.ErrNoWindow
		}
	}
	select {
	case a := <-p.answer:
		res := a.res
		if res.Action != mcp.ElicitationResponseActionAccept {
			return gateway.GuardDeny, nil
		}
		// The window's permission buttons say "always" for the session.
		if c, ok := res.Content.(map[string]any); ok && (c["session"] == true || c["always"] == true) {
			return gateway.GuardAllowSession, nil
		}
		return gateway.GuardAllowOnce, nil
	case <-ctx.Done():
		return gateway.GuardDeny, ctx.Err()
	}
}
