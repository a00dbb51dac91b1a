package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/tools"
)

// Recorder takes the record of each call of a server's tool, from either
// face and from search mode's call_tool: *activity.Log in the product.
// RecordCall must not wait: it runs on the call's path, perhaps on the
// goroutine that reads a server's answers.
type Recorder interface {
	RecordCall(c activity.Call)
}

var _ Recorder = (*activity.Log)(nil)

// callRecord is what is known of one call while it runs, for its record.
type callRecord struct {
	g        *Gateway
	r        route
	args     json.RawMessage
	start    time.Time
	app      string
	face     string
	decision activity.Decision // set once the permission decided
	outcome  activity.Outcome  // set where the gateway refuses or explains
	reason   string
	hid      atomic.Bool // its result held hidden text (tools.NoteHidden)
	// flow is the guard's decision about a connection its server made
	// while it ran (flowed), from the proxy's goroutine.
	flow atomic.Pointer[flowNote]
}

// flowNote is the guard's decision about a connection a call's server
// made, with the chain in words.
type flowNote struct {
	decision activity.Decision
	chain    string
}

// HiddenInResult is the reason a call's record gives when the tool's
// result held characters that hide text (tools.SanitizeResult): they were
// removed before the app read it, and the person may want to know the
// server tried.
const HiddenInResult = "its result held invisible or direction-changing characters, removed before the app read it"

// startRecord starts the record of a call of r with args, and returns ctx
// carrying it and done wrapped to finish it; with no Recorder, it returns
// them as they are.
func (g *Gateway) startRecord(ctx context.Context, r route, args json.RawMessage, p config.Permission,
	done func(*mcp.CallToolResult, error)) (context.Context, func(*mcp.CallToolResult, error)) {
	if g.rec == nil {
		return ctx, done
	}
	cr := &callRecord{g: g, r: r, args: args, start: time.Now(), app: callerApp(ctx), face: faceOf(ctx)}
	if p == config.Allow {
		cr.decision = activity.Allowed
	}
	// check (asking, blocking) and send (a server unavailable) note what
	// they find in it (recordOf), and where the call is made, whether
	// its result hid text (NoteHidden): one value in ctx for both.
	ctx = tools.WithHiddenNote(ctx, cr)
	return ctx, func(res *mcp.CallToolResult, err error) {
		cr.finish(ctx, res, err)
		done(res, err)
	}
}

// recordOf is the record of the call ctx is for, or nil.
func recordOf(ctx context.Context) *callRecord {
	cr, _ := tools.HiddenNoteOf(ctx).(*callRecord)
	return cr
}

// NoteHidden notes that the call's result held hidden text, removed
// before the app read it (tools.HiddenNote).
func (cr *callRecord) NoteHidden() { cr.hid.Store(true) }

// asked notes the person's answer to the question about the call.
func (cr *callRecord) asked(allowed bool, err error) {
	if cr == nil {
		return
	}
	switch {
	case err == nil && allowed:
		cr.decision = activity.AskedAllowed
	case err == nil:
		cr.decision = activity.AskedDeclined
	case errors.Is(err, ErrNoWindow):
		cr.decision = activity.NoWindow
	default:
		cr.decision = activity.AskedUnanswered
	}
}

// guarded notes the flow guard's decision about a call it held, and the
// chain that made it hold the call.
func (cr *callRecord) guarded(d activity.Decision, chain string) {
	if cr != nil {
		cr.decision, cr.reason = d, chain
	}
}

// flowed notes the guard's decision about a connection the call's server
// made while it ran (service.Flow.Decided), which stands for the call's
// in its record: the latest, unless one before refused.
func (cr *callRecord) flowed(d activity.Decision, chain string) {
	n := &flowNote{decision: d, chain: chain}
	for {
		old := cr.flow.Load()
		if old != nil && refusing(old.decision) && !refusing(d) {
			return
		}
		if cr.flow.CompareAndSwap(old, n) {
			return
		}
	}
}

// refusing says whether the guard's decision kept data from going.
func refusing(d activity.Decision) bool {
	return d == activity.GuardDeclined || d == activity.GuardUnanswered || d == activity.GuardNoWindow || d == activity.GuardBlocked
}

// refused notes that a permission kept the call from its server, and why.
func (cr *callRecord) refused(why string) {
	if cr == nil {
		return
	}
	cr.outcome, cr.reason = activity.Refused, why
	if cr.decision == "" {
		// Not asked: blocked, or no window to ask in.
		if permission(cr.g.rules.Load(), cr.r.qualified, cr.r.readOnly) == config.Block {
			cr.decision = activity.Blocked
		} else {
			cr.decision = activity.NoWindow
		}
	}
}

// unavailable notes that the server could not be reached, and why.
func (cr *callRecord) unavailable(why string) {
	if cr != nil {
		cr.outcome, cr.reason = activity.Unavailable, why
	}
}

// finish hands the call's record over.
func (cr *callRecord) finish(ctx context.Context, res *mcp.CallToolResult, err error) {
	c := activity.Call{Time: cr.start, App: cr.app, Face: cr.face, Server: cr.r.server, Tool: cr.r.tool,
		Duration: time.Since(cr.start), Outcome: cr.outcome, Reason: cr.reason, Decision: cr.decision,
		Arguments: cr.args}
	if c.Decision == "" {
		c.Decision = activity.Allowed // allowed when asked afresh (the rules changed)
	}
	if n := cr.flow.Load(); n != nil && c.Outcome == "" {
		c.Decision, c.Reason = n.decision, n.chain
	}
	switch {
	case c.Outcome != "":
	case err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil):
		c.Outcome = activity.Cancelled
	case err != nil:
		c.Outcome, c.Reason = activity.Unavailable, err.Error()
	case res != nil && res.IsError:
		c.Outcome = activity.ToolFailed
	default:
		c.Outcome = activity.Answered
	}
	if cr.hid.Load() && c.Reason == "" {
		c.Reason = HiddenInResult
	}
	c.ResultSize = resultSize(res)
	cr.g.rec.RecordCall(c)
}

// resultSize is the size of a result's content: its text, its data as
// sent (base64) and its structured content, without encoding it again.
func resultSize(res *mcp.CallToolResult) int {
	if res == nil {
		return 0
	}
	n := len(res.RawStructuredContent)
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			n += len(c.Text)
		case *mcp.TextContent:
			n += len(c.Text)
		case mcp.ImageContent:
			n += len(c.Data)
		case *mcp.ImageContent:
			n += len(c.Data)
		case mcp.AudioContent:
			n += len(c.Data)
		case *mcp.AudioContent:
			n += len(c.Data)
		case mcp.EmbeddedResource:
			n += resourceSize(c.Resource)
		case *mcp.EmbeddedResource:
			n += resourceSize(c.Resource)
		}
	}
	return n
}

func resourceSize(r mcp.ResourceContents) int {
	switch r := r.(type) {
	case mcp.TextResourceContents:
		return len(r.Text)
	case *mcp.TextResourceContents:
		return len(r.Text)
	case mcp.BlobResourceContents:
		return len(r.Blob)
	case *mcp.BlobResourceContents:
		return len(r.Blob)
	}
	return 0
}

// callerApp is the calling app's name as people know it, for a session
// or a sessionless request.
func callerApp(ctx context.Context) string {
	if app, ok := requestApp(ctx); ok {
		// A sessionless request with the app's own token: the app it
		// names, whatever its clientInfo says.
		return namedApp(app)
	}
	if name := appName(ctx); name != "" {
		return name
	}
	if _, info := modernKey(ctx); info != nil {
		if c, known := ClientOf(info.Name); known {
			return c.App
		}
		return info.Name
	}
	return ""
}
