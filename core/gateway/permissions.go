package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/guard"
)

// Question is what the gateway asks the person before a call of a tool whose
// permission is Ask.
type Question struct {
	// Tool is the tool's qualified name; Server and ServerTool say whose
	// it is and what the server calls it.
	Tool, Server, ServerTool string
	// Arguments are the call's arguments as the app sent them: sanitise
	// them before showing them.
	Arguments json.RawMessage
	// ReadOnly is what the server claims (readOnlyHint): show it, never
	// let it decide.
	ReadOnly bool
	// App is the calling app's name as it gave it in initialize ("" when
	// it gave none): the app's own word, sanitise it before showing it.
	App string
}

// ErrNoWindow is what an AskFunc returns when there is no window to ask
// in: the call is refused with the words that say how to allow the tool.
var ErrNoWindow = errors.New("there is no mcptray window to ask in")

// AskFunc asks the person whether a call may go ahead, and returns when they
// answered or ctx ended. Remembering "allow always" is its business.
type AskFunc func(ctx context.Context, q Question) (allowed bool, err error)

// DefaultAskTimeout is how long a call waits for the person's answer.
const DefaultAskTimeout = 2 * time.Minute

// permission is the tool's permission: the person's choice, or Allow for a
// tool its server says only reads and Ask for any other.
func permission(rules *config.GatewayRules, tool string, readOnly bool) config.Permission {
	if rules != nil {
		if p, ok := rules.Permissions[tool]; ok {
			return p
		}
	}
	if readOnly {
		return config.Allow
	}
	return config.Ask
}

// allowCommand is how a person allows a tool from the command line.
func allowCommand(tool string) string { return "mcptray permissions allow " + tool }

// check says why a call may not go ahead, or "" when it may: its
// permission, then the flow guard (guard.go). A call the guard holds is
// asked about once, in the guard's words, which stand for the permission's
// question too. The guard's verdict comes with it, for the call's Flow.
func (g *Gateway) check(ctx context.Context, r route, args json.RawMessage, c guard.Call) (string, guard.Verdict) {
	switch g.permissionFor(ctx, r) {
	case config.Allow:
		return g.guarded(ctx, r, c)
	case config.Block:
		return fmt.Sprintf("mcptray blocks %s; to let it run: %s", r.qualified, allowCommand(r.qualified)), guard.Verdict{}
	}
	if v := g.guard.Check(c); v.Held {
		return g.decideHeld(ctx, r, c, v), v
	}
	noWindow := fmt.Sprintf("%s needs your OK in mcptray, and there is no mcptray window to ask in; to let it run every time: %s", r.qualified, allowCommand(r.qualified))
	if g.ask == nil {
		return noWindow, guard.Verdict{}
	}
	// The person may have allowed the tool a moment ago ("allow always"
	// in the window, or the command line): read the rules afresh before
	// asking again. Questions are rare; a snapshot is cheap.
	if snap, err := g.svc.Snapshot(ctx); err == nil {
		rules := snap.Gateway
		g.rules.Store(&rules)
		switch g.permissionFor(ctx, r) { // the app's set's own first (sets.go)
		case config.Allow:
			return g.guarded(ctx, r, c)
		case config.Block:
			return fmt.Sprintf("mcptray blocks %s; to let it run: %s", r.qualified, allowCommand(r.qualified)), guard.Verdict{}
		}
	}
	actx, cancel := context.WithTimeout(ctx, g.askTimeout)
	defer cancel()
	ok, err := g.ask(actx, Question{Tool: r.qualified, Server: r.server, ServerTool: r.tool, Arguments: args, ReadOnly: r.readOnly, App: g.appAndSet(ctx)})
	recordOf(ctx).asked(ok, err)
	switch {
	case ctx.Err() != nil:
		return "cancelled", guard.Verdict{}
	case errors.Is(err, ErrNoWindow):
		return noWindow, guard.Verdict{}
	case errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil:
		return fmt.Sprintf("nobody answered mcptray's question about %s within %s; to let it run every time: %s", r.qualified, g.askTimeout, allowCommand(r.qualified)), guard.Verdict{}
	case err != nil:
		return fmt.Sprintf("mcptray could not ask about %s: %v; to let it run every time: %s", r.qualified, err, allowCommand(r.qualified)), guard.Verdict{}
	case !ok:
		return fmt.Sprintf("you declined %s in mcptray", r.qualified), guard.Verdict{}
	}
	return g.guarded(ctx, r, c)
}

// guarded counts a call its permission allowed with the flow guard, and
// says why it may not go ahead when the guard holds it, or "", with the
// guard's verdict.
func (g *Gateway) guarded(ctx context.Context, r route, c guard.Call) (string, guard.Verdict) {
	v := g.guard.See(c)
	if v.Held {
		return g.decideHeld(ctx, r, c, v), v
	}
	return "", v
}

// appName is the calling app's name as people know it ("Claude Code" for
// the client claude-code), else the name it gave in initialize, or "".
func appName(ctx context.Context) string {
	session := server.ClientSessionFromContext(ctx)
	if s, ok := session.(interface{ appName() string }); ok {
		return s.appName() // the gateway's own sessions know it
	}
	s, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return ""
	}
	name := s.GetClientInfo().Name
	if c, known := ClientOf(name); known {
		return c.App
	}
	return name
}
