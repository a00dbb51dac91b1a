package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/guard"
	"github.com/mcptray/mcptray/core/service"
)

// Every call of a server's tool goes through the flow guard (core/guard):
// once an app's session has read private data and untrusted content, its
// call of a tool that can send data out is held, and the person is asked
// with the chain in words (Options.AskGuard), or it is refused (the
// guard's mode block, or no window to ask in). The guard's question
// stands for the tool's permission's too: a call it holds is asked about
// once.

// GuardAnswer is the person's answer to the guard's question.
type GuardAnswer int

// The answers to the guard's question.
const (
	GuardDeny GuardAnswer = iota
	GuardAllowOnce
	// GuardAllowSession lets the tool's calls through for the rest of
	// the app's session.
	GuardAllowSession
)

// GuardQuestion is what the guard asks the person about a held call.
type GuardQuestion struct {
	// Tool is the tool's qualified name; Server and ServerTool say whose
	// it is and what the server calls it.
	Tool, Server, ServerTool string
	// App is the calling app as people know it, or "".
	App string
	// Chain says in words how the session came to be held: "Claude Code
	// read ~/notes/tax.txt through files, then read
	// https://example.com/issue/42 through fetch. It now wants to send
	// data through slack (to hooks.slack.com)." Sanitised.
	Chain string
	// Arguments are the held call's, as the app sent them: sanitise them
	// before showing them.
	Arguments json.RawMessage
}

// GuardAskFunc asks the person about a held call and returns when they
// answered or ctx ended; ErrNoWindow when there is no window to ask in.
type GuardAskFunc func(ctx context.Context, q GuardQuestion) (GuardAnswer, error)

// guardCall is the guard's view of a call of r; its Tool is nil when the
// tool has no labels known (the search tools).
func (g *Gateway) guardCall(ctx context.Context, r route, args json.RawMessage) guard.Call {
	c := guard.Call{Args: args}
	if m := g.labels.Load(); m != nil {
		c.Tool = (*m)[r.qualified]
	}
	if id := sessionID(ctx); id != "" {
		c.Session = id
	} else if key, _ := modernKey(ctx); key != "" {
		c.Session, c.Sessionless = key, true
	} else {
		// A sessionless app that names no client: every such request
		// of a face is one session, so nothing slips between them.
		c.Session, c.Sessionless = faceOf(ctx)+"\x00", true
	}
	return c
}

// flowOf is the Flow a call carries when the guard says its session had
// read private data and untrusted content (v.Tainted), so that the
// sandbox's proxy asks with the chain about its server's new hosts while
// it runs (core/egress), and notes what was decided in the call's record;
// nil otherwise, the way every other call takes.
func (g *Gateway) flowOf(ctx context.Context, v guard.Verdict) *service.Flow {
	if !v.Tainted {
		return nil
	}
	f := &service.Flow{Chain: v.Chain}
	if f.Chain.App == "" {
		f.Chain.App = callerApp(ctx)
	}
	if cr := recordOf(ctx); cr != nil {
		f.Decided = cr.flowed
	}
	return f
}

// guardMode is the guard's mode now.
func (g *Gateway) guardMode() config.GuardMode {
	if rules := g.rules.Load(); rules != nil {
		return rules.Guard.Mode.Or()
	}
	return config.GuardAsk
}

// guardCommands say how a held call gets through from the command line.
func guardCommands(tool string, m config.GuardMode) string {
	first := "To let such calls through, answer in mcptray's window (mcptray window)"
	if m == config.GuardBlock {
		first = "To be asked instead, in mcptray's window: mcptray guard ask"
	}
	return fmt.Sprintf("%s, or turn the guard off (mcptray guard off); if %s cannot send data out: mcptray guard label %s --not-egress", first, tool, tool)
}

// decideHeld asks about, or refuses, a call the guard held, and says why
// it may not go ahead, or "" when it may (then the call counts as made).
func (g *Gateway) decideHeld(ctx context.Context, r route, c guard.Call, v guard.Verdict) string {
	v.Chain.App = g.appAndSet(ctx) // only a held call needs it
	chain := v.Chain.Words()
	cr := recordOf(ctx)
	mode := g.guardMode()
	switch mode {
	case config.GuardOff:
		cr.guarded(activity.GuardOff, chain)
		g.guard.Allow(c, false)
		return ""
	case config.GuardBlock:
		cr.guarded(activity.GuardBlocked, chain)
		return fmt.Sprintf("mcptray's guard blocks this: %s %s", chain, guardCommands(r.qualified, mode))
	}
	noWindow := fmt.Sprintf("mcptray's guard holds this for your OK, and there is no mcptray window to ask in: %s %s", chain, guardCommands(r.qualified, mode))
	if g.askGuard == nil {
		cr.guarded(activity.GuardNoWindow, chain)
		return noWindow
	}
	actx, cancel := context.WithTimeout(ctx, g.askTimeout)
	defer cancel()
	answer, err := g.askGuard(actx, GuardQuestion{Tool: r.qualified, Server: r.server, ServerTool: r.tool,
		App: v.Chain.App, Chain: chain, Arguments: c.Args})
	switch {
	case ctx.Err() != nil:
		return "cancelled"
	case errors.Is(err, ErrNoWindow):
		cr.guarded(activity.GuardNoWindow, chain)
		return noWindow
	case err != nil:
		cr.guarded(activity.GuardUnanswered, chain)
		if errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil {
			return fmt.Sprintf("nobody answered mcptray's guard within %s: %s %s", g.askTimeout, chain, guardCommands(r.qualified, mode))
		}
		return fmt.Sprintf("mcptray's guard could not ask you (%v): %s %s", err, chain, guardCommands(r.qualified, mode))
	case answer == GuardAllowSession:
		cr.guarded(activity.GuardAllowedSession, chain)
		g.guard.Allow(c, true)
		return ""
	case answer == GuardAllowOnce:
		cr.guarded(activity.GuardAllowedOnce, chain)
		g.guard.Allow(c, false)
		return ""
	}
	cr.guarded(activity.GuardDeclined, chain)
	return "you declined in mcptray: " + chain
}
