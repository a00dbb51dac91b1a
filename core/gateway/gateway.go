package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/guard"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
	"github.com/mcptray/mcptray/core/tools"
)

// Servers is what the gateway stands for: the running mcptray's servers,
// their tools and their calls. *service.Service is the one in the product.
type Servers interface {
	// Snapshot says which servers are connected, with their tools.
	Snapshot(ctx context.Context) (service.Snapshot, error)
	// Subscribe gives a notice whenever the Snapshot may have changed.
	Subscribe(ctx context.Context) (<-chan struct{}, error)
	// CallAsync calls a tool by its server's name and the server's own
	// name for the tool, and gives done the result, once, perhaps on a
	// goroutine where done must not wait on anything.
	CallAsync(ctx context.Context, req service.CallRequest, done func(*mcp.CallToolResult, error))
	// OfferablePrompts are the prompts of a server's list, as the gateway
	// listed them, that apps may be offered: those the person saw as they
	// are now. Every other one is held (pins.go); an error means it
	// cannot tell, and the gateway offers none of the list.
	OfferablePrompts(server string, list []mcp.Prompt) ([]mcp.Prompt, error)
}

var _ Servers = (*service.Service)(nil)

// Options configure a Gateway.
type Options struct {
	Logger *slog.Logger
	// Version is what the gateway says it is in initialize; "" means
	// service.Version.
	Version string
	// Ask asks the person about a call of a tool whose permission is Ask;
	// nil means there is no window to ask in, and such calls are refused
	// with a message that says how to allow the tool.
	Ask AskFunc
	// AskTimeout bounds the wait for an answer; zero means
	// DefaultAskTimeout.
	AskTimeout time.Duration
	// Recorder takes the record of each call (record.go); nil records
	// nothing.
	Recorder Recorder
	// AskGuard asks the person about a call the flow guard held
	// (guard.go); nil means there is no window to ask in, and such calls
	// are refused with the commands that let them through.
	AskGuard GuardAskFunc
	// Home is the person's home folder, written ~ in the guard's words;
	// "" writes paths whole.
	Home string
	// AppsChanged is called when an app arrives, lists its tools or
	// leaves, and Sessions changed: core/instance gives the service's
	// roster of the apps (apps.Roster.Changed), which reads Sessions.
	// It must not wait.
	AppsChanged func()
}

// Name is the gateway's server name in initialize.
const Name = "mcptray"

// Gateway is the one MCP server that stands for every server mcptray runs.
// It is safe for concurrent use.
type Gateway struct {
	svc        Servers
	log        *slog.Logger
	mcp        *server.MCPServer
	ask        AskFunc
	askTimeout time.Duration
	rec        Recorder
	rules      atomic.Pointer[config.GatewayRules] // the person's permissions, from the last snapshot
	askGuard   GuardAskFunc
	guard      *guard.Tracker                               // what each app session touched (guard.go)
	labels     atomic.Pointer[map[string]*guard.ToolLabels] // the offered tools' labels, from the last snapshot

	syncMu        sync.Mutex // held through each Sync
	mu            sync.Mutex
	last          []byte                      // the tool set last given to mcp, encoded; nil before the first
	lastResources []byte                      // the same for resources
	lastPrompts   []byte                      // and prompts
	listJSON      atomic.Pointer[encodedList] // the answer to tools/list, encoded (listcache.go)
	routes        atomic.Pointer[toolRoutes]  // the offered tools' routes, for direct calls (directcall.go)
	calls         directCalls                 // the direct calls in flight
	listed        map[string]*listed          // each offered server's resources and prompts, by name
	handler       *httpFace                   // the HTTP face, made when first asked for
	warm          *warmup                     // whether servers are still starting (firstlist.go)
	offersApps    atomic.Bool                 // a server it offers has an MCP App's view (mcpapps.go)

	apps *appSessions // the apps' sessions (sessions.go)

	choices atomic.Pointer[sets.Choices] // what each app gets (sets.go); nil: everything
	sets    setLists                     // the sets' lists and the sessions they go to
}

// route is where a qualified name's calls go.
type route struct {
	server, tool string
	qualified    string
	readOnly     bool // the server's claim, unless its definition reads as orders to the AI
}

// New returns a Gateway for svc with no tools yet: Run (or Sync) gives it
// the service's.
func New(svc Servers, opts Options) *Gateway {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = service.Version
	}
	if opts.AskTimeout == 0 {
		opts.AskTimeout = DefaultAskTimeout
	}
	g := &Gateway{svc: svc, log: opts.Logger, ask: opts.Ask, askTimeout: opts.AskTimeout, rec: opts.Recorder, apps: newAppSessions(), warm: newWarmup(),
		askGuard: opts.AskGuard, guard: guard.NewTracker(opts.Home, modernIdle)}
	g.apps.changed = opts.AppsChanged
	hooks := &server.Hooks{}
	// Each app's set first: the record counts what the app was given.
	hooks.AddAfterListTools(g.filterList)
	hooks.AddAfterListResources(g.filterResources)
	hooks.AddAfterListPrompts(g.filterPrompts)
	hooks.AddOnRegisterSession(g.sessionStarted)
	hooks.AddOnUnregisterSession(g.sessionEnded)
	g.apps.addHooks(hooks)
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { g.guard.End(cs.SessionID()) })
	hooks.AddAfterInitialize(g.declareApps)
	g.mcp = server.NewMCPServer(Name, opts.Version,
		server.WithHooks(hooks),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithPromptCapabilities(true),
		server.WithRecovery(),
		// Apps may set a level; servers' log messages are not passed on yet.
		server.WithLogging(),
		server.WithInstructions("mcptray's gateway: the tools of every MCP server this person runs in mcptray, each named mcp__SERVER__TOOL."),
	)
	// Empty lists still say "tools", "resources" and "prompts" in the
	// capabilities, so that apps ask again when list_changed comes.
	g.mcp.SetTools()
	g.mcp.SetResources()
	g.mcp.SetPrompts()
	return g
}

// MCPServer is the gateway's MCP server, for a transport to serve.
func (g *Gateway) MCPServer() *server.MCPServer { return g.mcp }

// Run keeps the gateway's tools those of the service until ctx ends,
// taking them anew on every change notice; each change reaches the apps as
// notifications/tools/list_changed.
func (g *Gateway) Run(ctx context.Context) error {
	notices, err := g.svc.Subscribe(ctx)
	if err != nil {
		return fmt.Errorf("following the servers: %w", err)
	}
	if err := g.Sync(ctx); err != nil {
		g.log.Warn("gateway: reading the servers", "err", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-notices:
			if !ok {
				return nil
			}
			if err := g.Sync(ctx); err != nil && ctx.Err() == nil {
				g.log.Warn("gateway: reading the servers", "err", err)
			}
		}
	}
}

// Sync gives the gateway the service's tools now. When they are the same
// as before nothing happens, so apps are not told of a change that is none.
func (g *Gateway) Sync(ctx context.Context) error {
	// One Sync at a time, from its snapshot to its tools: otherwise an
	// older snapshot could be applied after a newer one, and stay.
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	snap, err := g.svc.Snapshot(ctx)
	if err != nil {
		return err
	}
	rules := snap.Gateway
	g.rules.Store(&rules)
	// Labels at every change, whether or not the tools changed: a grant
	// or a correction changes them alone.
	labels := snap.GuardLabels()
	g.labels.Store(&labels)
	list, routes := g.serverTools(snap)
	type entry struct {
		Tool  mcp.Tool
		Route [2]string
	}
	entries := make([]entry, len(list))
	for i := range list {
		entries[i] = entry{list[i].Tool, [2]string{routes[i].server, routes[i].tool}}
	}
	enc, err := json.Marshal(struct {
		Search bool
		Tools  []entry
	}{rules.Search, entries})
	if err != nil {
		return fmt.Errorf("encoding the tools: %w", err)
	}
	// Direct calls reach the servers' tools only: the search tools read
	// their arguments decoded, as mcp-go gives them.
	direct := newToolRoutes(routes)
	if rules.Search {
		list = g.searchTools(list, routes)
		direct = newToolRoutes(nil)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// Tools first: listing a new server's resources and prompts may take
	// a while, and must not hold its tools back.
	if g.last == nil || !bytes.Equal(enc, g.last) {
		g.last = enc
		// The encoded answer first: apps ask again on list_changed.
		if answer, err := encodeList(list); err == nil {
			g.listJSON.Store(answer)
		} else {
			g.listJSON.Store(nil) // mcp-go answers, and says what is wrong
			g.log.Warn("gateway: encoding the tools", "err", err)
		}
		g.routes.Store(direct)
		g.keepTools(list, routes)
		g.mcp.SetTools(list...) // sends tools/list_changed to every session
		g.log.Debug("gateway: tools changed", "tools", len(list))
	}
	g.syncContent(ctx, snap)
	// Last: a first list that waits for this is answered with all of it.
	g.warm.set(starting(snap))
	return nil
}

// offered reports whether a server's tools are offered: it is connected
// and may run (approved, enabled, not given way to another).
func offered(sv *service.Server) bool {
	return sv.State == conn.Connected && sv.Runnable && sv.Suppressed == ""
}

// serverTools turns the snapshot into the gateway's tools, sorted by name,
// and where each one's calls go.
func (g *Gateway) serverTools(snap service.Snapshot) ([]server.ServerTool, []route) {
	type routed struct {
		st server.ServerTool
		r  route
	}
	var all []routed
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if !offered(sv) {
			continue
		}
		for _, t := range sv.Tools {
			if t.QualifiedName == "" || snap.Gateway.Hides(sv.Name, t.QualifiedName) {
				continue
			}
			tool := toMCP(t)
			if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
				// mcp-go refuses such a tool outright; leave it out
				// rather than lose every other.
				g.log.Warn("gateway: leaving out a tool", "tool", t.QualifiedName, "err", err)
				continue
			}
			r := route{server: sv.Name, tool: t.Name, qualified: t.QualifiedName, readOnly: t.Hints.ReadOnly == tools.HintTrue && !sv.Review.Flagged(t.Name)}
			all = append(all, routed{server.ServerTool{Tool: tool, Handler: g.call(r)}, r})
		}
	}
	slices.SortFunc(all, func(a, b routed) int { return strings.Compare(a.st.Tool.Name, b.st.Tool.Name) })
	list, routes := make([]server.ServerTool, len(all)), make([]route, len(all))
	for i, x := range all {
		list[i], routes[i] = x.st, x.r
	}
	return list, routes
}

// toMCP is t as the gateway lists it: its schemas are the server's bytes
// but for the characters that hide text, removed from every string in them
// (sanitize.JSON), its _meta the server's but for its view's URI
// (mcpapps.go).
func toMCP(t tools.Tool) mcp.Tool {
	tool := mcp.Tool{
		Meta:            toolMeta(t),
		Name:            t.QualifiedName,
		Title:           t.Title,
		Description:     t.Description,
		RawInputSchema:  sanitize.JSON(t.InputSchema),
		RawOutputSchema: sanitize.JSON(t.OutputSchema),
		Annotations: mcp.ToolAnnotation{
			Title:           t.Hints.Title,
			ReadOnlyHint:    hint(t.Hints.ReadOnly),
			DestructiveHint: hint(t.Hints.Destructive),
			IdempotentHint:  hint(t.Hints.Idempotent),
			OpenWorldHint:   hint(t.Hints.OpenWorld),
		},
	}
	if len(tool.RawOutputSchema) == 0 || string(tool.RawOutputSchema) == "null" {
		tool.RawOutputSchema = nil
	}
	return tool
}

// hint is h as mcp-go spells it: absent stays absent.
func hint(h tools.Hint) *bool {
	switch h {
	case tools.HintTrue:
		return mcp.ToBoolPtr(true)
	case tools.HintFalse:
		return mcp.ToBoolPtr(false)
	}
	return nil
}

// call is the handler of one tool for mcp-go: forward, waiting.
func (g *Gateway) call(r route) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		type outcome struct {
			res *mcp.CallToolResult
			err error
		}
		ch := make(chan outcome, 1)
		g.forward(ctx, r, req, func(res *mcp.CallToolResult, err error) { ch <- outcome{res, err} })
		o := <-ch
		return o.res, o.err
	}
}

// forward forwards a call of one tool to its server, once the person's
// permission and the flow guard (guard.go) allow it, and gives done what
// the tool's handler returns,
// once. A tool that is allowed is called without a goroutine of its own
// (Service.CallAsync): done then runs on the goroutine that reads the
// server's answers and must not wait on anything. Asking the person, and
// explaining a failure, happen on a goroutine of their own.
func (g *Gateway) forward(ctx context.Context, r route, req mcp.CallToolRequest, done func(*mcp.CallToolResult, error)) {
	var args json.RawMessage
	switch raw := req.GetRawArguments().(type) {
	case nil:
	case json.RawMessage: // as the app sent them: passed on unchanged
		args = raw
	default:
		b, err := json.Marshal(raw)
		if err != nil {
			done(mcp.NewToolResultError(fmt.Sprintf("the arguments could not be read: %v", err)), nil)
			return
		}
		args = b
	}
	p := g.permissionFor(ctx, r)
	ctx, done = g.startRecord(ctx, r, args, p, done)
	if why := g.outsideSet(ctx, r); why != "" {
		g.refuse(ctx, why, done)
		return
	}
	c := g.guardCall(ctx, r, args)
	if p == config.Allow {
		v := g.guard.See(c)
		if v.Held {
			g.decideThenSend(ctx, r, req, args, c, v, done)
			return
		}
		g.send(ctx, r, req, args, g.flowOf(ctx, v), done)
		return
	}
	g.checkThenSend(ctx, r, req, args, c, done)
}

// decideThenSend asks about a call the guard held, or refuses it, on a
// goroutine of its own, and sends it when it may go ahead. (Its own
// function, so that the call's guard.Call escapes to the heap only here.)
func (g *Gateway) decideThenSend(ctx context.Context, r route, req mcp.CallToolRequest, args json.RawMessage, c guard.Call, v guard.Verdict, done func(*mcp.CallToolResult, error)) {
	go func() {
		if why := g.decideHeld(ctx, r, c, v); why != "" {
			g.refuse(ctx, why, done)
			return
		}
		g.send(ctx, r, req, args, g.flowOf(ctx, v), done)
	}()
}

// checkThenSend checks a call whose permission is not Allow on a
// goroutine of its own (check), and sends it when it may go ahead.
func (g *Gateway) checkThenSend(ctx context.Context, r route, req mcp.CallToolRequest, args json.RawMessage, c guard.Call, done func(*mcp.CallToolResult, error)) {
	go func() {
		why, v := g.check(ctx, r, args, c)
		if why != "" {
			g.refuse(ctx, why, done)
			return
		}
		g.send(ctx, r, req, args, g.flowOf(ctx, v), done)
	}()
}

// refuse answers a call that may not go ahead with why, and notes it in
// its record.
func (g *Gateway) refuse(ctx context.Context, why string, done func(*mcp.CallToolResult, error)) {
	if ctx.Err() != nil {
		done(nil, ctx.Err())
		return
	}
	recordOf(ctx).refused(why)
	done(mcp.NewToolResultError(why), nil)
}

// send calls the tool, its permission given; flow is set when the
// session had read private data and untrusted content (flowOf).
func (g *Gateway) send(ctx context.Context, r route, req mcp.CallToolRequest, args json.RawMessage, flow *service.Flow, done func(*mcp.CallToolResult, error)) {
	creq := service.CallRequest{Server: r.server, Tool: r.tool, Arguments: args, Flow: flow}
	g.svc.CallAsync(conn.WithCaller(ctx, g.caller(ctx, req)), creq, func(res *mcp.CallToolResult, err error) {
		switch {
		case err == nil:
			done(res, nil)
		case ctx.Err() != nil:
			done(nil, ctx.Err()) // the app cancelled: it reads no answer
		default:
			go func() {
				why := g.explain(ctx, r.server, "the tool "+sanitize.Line(r.tool), err)
				recordOf(ctx).unavailable(why)
				done(mcp.NewToolResultError(why), nil)
			}()
		}
	})
}

// explain says in plain words why a request failed: the server is
// unavailable (and why, in the snapshot's words), or what was asked for
// ("the tool echo") failed.
func (g *Gateway) explain(ctx context.Context, srv, what string, err error) string {
	name := sanitize.Line(srv)
	if snap, serr := g.svc.Snapshot(ctx); serr == nil {
		sv, ok := snap.Find(srv)
		switch {
		case !ok:
			return fmt.Sprintf("the server %s is unavailable: it is no longer set up in mcptray", name)
		case sv.State != conn.Connected:
			why := sv.Reason
			if why == "" {
				why = sv.State.String()
			}
			msg := fmt.Sprintf("the server %s is unavailable: %s", name, sanitize.Line(why))
			if sv.Fix.Label != "" {
				msg += fmt.Sprintf(" (in mcptray: %s)", sanitize.Line(sv.Fix.Label))
			}
			return msg
		}
	}
	if errors.Is(err, conn.ErrClosed) {
		return "mcptray is shutting down; try again once it runs"
	}
	return fmt.Sprintf("%s of %s failed: %s", what, name, sanitize.Line(err.Error()))
}
