package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/valyala/fasthttp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/sets"
)

// Each app its own servers (core/sets). The gateway knows an app for sure
// only by what mcptray gave it: the name in the config mcptray wrote for
// it (mcptray stdio --app NAME, which the control endpoint puts on the
// session's context, sets.WithApp) or a token of its own on the HTTP face
// (AppToken): a session's at its initialize, and on MCP's sessionless
// revision each request's (requestApp). What an app says of itself in its clientInfo, which any
// program can claim, never chooses its set. Each session is then served
// only its set: its tools/list holds only the set's tools (the encoded
// list of each set, made once per change, listcache.go), and a call of a
// tool outside it is refused in words (forward). A change of the choices
// tells each session whose set changed, and no other, with
// notifications/tools/list_changed at once.

// appTokenPrefix begins every app's own token.
const appTokenPrefix = "mcptray-app."

// AppToken is the HTTP face's token of app alone, made from the gateway's
// token: "mcptray-app.NAME.MAC", NAME in base64url, MAC the HMAC-SHA256
// of NAME keyed with the gateway's token. It lets the gateway know the
// app by it; a new gateway token ends every app's.
func AppToken(token, app string) string {
	name := base64.RawURLEncoding.EncodeToString([]byte(app))
	return appTokenPrefix + name + "." + appMAC(token, name)
}

func appMAC(token, name string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("mcptray app token\x00" + name))
	return hex.EncodeToString(m.Sum(nil))
}

// appOfToken is the app whose own token got is, made from token; false
// when got is none.
func appOfToken(token string, got []byte) (string, bool) {
	rest, ok := strings.CutPrefix(string(got), appTokenPrefix)
	if !ok || token == "" {
		return "", false
	}
	name, mac, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	want := appMAC(token, name)
	if subtle.ConstantTimeCompare([]byte(mac), []byte(want)) != 1 {
		return "", false
	}
	app, err := base64.RawURLEncoding.DecodeString(name)
	if err != nil || sets.CheckApp(string(app)) != nil {
		return "", false
	}
	return string(app), true
}

// tokenAppKey is the fasthttp user value of the app a request's token
// names.
const tokenAppKey = "mcptray.app"

// tokenApp is the app the request's own token named, "" for the
// gateway's token.
func tokenApp(ctx *fasthttp.RequestCtx) string {
	app, _ := ctx.UserValue(tokenAppKey).(string)
	return app
}

// sameApp reports whether a request that names a session was made with
// the token of the session's app: another app's token does not reach a
// session it did not start.
func (f *httpFace) sameApp(ctx *fasthttp.RequestCtx) bool {
	id := ctx.Request.Header.Peek(sessionHeader)
	if len(id) == 0 {
		return true
	}
	s := f.ids.get(string(id))
	if s == nil {
		return true // the face says there is no such session
	}
	app, _ := s.knownApp()
	return app == tokenApp(ctx)
}

// knownApp is the app mcptray knows the session's app as, if any.
func (c *clientState) knownApp() (string, bool) {
	if app := c.known.Load(); app != nil {
		return *app, true
	}
	return "", false
}

// knower is a session that may know its app (the gateway's own).
type knower interface {
	knownApp() (string, bool)
}

// givenTo is what the session (or the sessionless request) in ctx gets;
// false when it gets everything as it would without sets.
func (g *Gateway) givenTo(ctx context.Context) (sets.Given, bool) {
	k, _ := server.ClientSessionFromContext(ctx).(knower)
	if app, ok := requestApp(ctx); ok {
		return g.givenToApp(app, true)
	}
	return g.givenToSession(k)
}

// requestApp is the app a sessionless request's own token named (put on
// its context by endsWithConn), when the request belongs to no session
// that knows its app: on MCP's sessionless revision the token names the
// app for each request, as it names a session's at its initialize. Its
// clientInfo, which any program can claim, never does.
func requestApp(ctx context.Context) (string, bool) {
	if k, ok := server.ClientSessionFromContext(ctx).(knower); ok {
		if _, known := k.knownApp(); known {
			return "", false // the session's own name stands
		}
	}
	return sets.AppFrom(ctx)
}

// givenToSession is givenTo for the session cs; nil is an app mcptray
// does not know.
func (g *Gateway) givenToSession(cs any) (sets.Given, bool) {
	var app string
	var known bool
	if k, ok := cs.(knower); ok {
		app, known = k.knownApp()
	}
	return g.givenToApp(app, known)
}

// givenToApp is what app gets; known says whether mcptray knows it for
// sure.
func (g *Gateway) givenToApp(app string, known bool) (sets.Given, bool) {
	c := g.choices.Load()
	if c == nil {
		return sets.Given{}, false
	}
	given := c.For(app, known)
	return given, given.Nothing || given.Set != nil
}

// outsideSet says why the session in ctx may not call r, or "" when it
// may.
func (g *Gateway) outsideSet(ctx context.Context, r route) string {
	given, ok := g.givenTo(ctx)
	if !ok || given.Holds(r.server, r.tool, r.qualified) {
		return ""
	}
	if given.Nothing {
		return fmt.Sprintf("%s: %s; to give it tools: mcptray app set APP all (or a set), with the name mcptray knows it by", sets.ErrNothing, "so it gets no tool")
	}
	return fmt.Sprintf("the tool %s is not in the %s set, which is what this app gets from mcptray; to change what it gets: mcptray app set %s SET|all",
		sanitize.Line(r.qualified), given.Set.Name, appOf(ctx))
}

// appOf is the name mcptray knows the app in ctx by, or APP.
func appOf(ctx context.Context) string {
	if k, ok := server.ClientSessionFromContext(ctx).(knower); ok {
		if app, known := k.knownApp(); known {
			return app
		}
	}
	if app, ok := requestApp(ctx); ok {
		return app
	}
	return "APP"
}

// permissionFor is r's permission for the app in ctx: its set's own, or
// the gateway's.
func (g *Gateway) permissionFor(ctx context.Context, r route) config.Permission {
	if given, ok := g.givenTo(ctx); ok && given.Set != nil {
		if p, ok := given.Set.Permission(r.qualified); ok {
			return p
		}
	}
	return permission(g.rules.Load(), r.qualified, r.readOnly)
}

// setLists are the encoded tools/list answers of the sets, made when
// first asked for after each change of the tools or the choices.
type setLists struct {
	mu     sync.Mutex
	base   *encodedList            // the list they were made from
	tools  []server.ServerTool     // its tools
	routes map[string]route        // and their routes, by qualified name
	byKey  map[string]*encodedList // each set's, by givenKey
	// whose each offered resource (by URI) and prompt is
	resourceOf, promptOf map[string]string
	keys                 map[string]string // each session's last givenKey, by id
	live                 map[string]server.ClientSession
}

// givenKey tells one set's content from another's.
func givenKey(g sets.Given) string {
	switch {
	case g.Nothing:
		return "nothing"
	case g.Set == nil:
		return "everything"
	}
	b, _ := json.Marshal(g.Set)
	return string(b)
}

// keepTools keeps the offered tools and their routes, for the sets'
// lists; the gateway's mu is held.
func (g *Gateway) keepTools(list []server.ServerTool, routes []route) {
	m := make(map[string]route, len(routes))
	for _, r := range routes {
		m[r.qualified] = r
	}
	g.sets.mu.Lock()
	g.sets.tools, g.sets.routes, g.sets.byKey = list, m, map[string]*encodedList{}
	g.sets.mu.Unlock()
}

// listFor is the encoded tools/list answer for the session c.
func (g *Gateway) listFor(c *clientState) *encodedList {
	all := g.listJSON.Load()
	given, ok := g.givenToSession(c)
	if !ok || all == nil {
		return all
	}
	key := givenKey(given)
	g.sets.mu.Lock()
	defer g.sets.mu.Unlock()
	if l, ok := g.sets.byKey[key]; ok {
		return l
	}
	var kept []server.ServerTool
	for _, st := range g.sets.tools {
		if r, ok := g.sets.routes[st.Tool.Name]; !ok || given.Holds(r.server, r.tool, r.qualified) {
			kept = append(kept, st)
		}
	}
	l, err := encodeList(kept)
	if err != nil {
		return nil // mcp-go answers, and the hook filters
	}
	if g.sets.byKey == nil {
		g.sets.byKey = map[string]*encodedList{}
	}
	g.sets.byKey[key] = l
	return l
}

// filterList leaves out of res the tools the session in ctx does not
// get: mcp-go's answers to tools/list (a cursor, a first list of a
// session the gateway does not answer itself).
func (g *Gateway) filterList(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	given, ok := g.givenTo(ctx)
	if !ok || res == nil {
		return
	}
	g.sets.mu.Lock()
	routes := g.sets.routes
	g.sets.mu.Unlock()
	kept := make([]mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		if r, ok := routes[t.Name]; !ok || given.Holds(r.server, r.tool, r.qualified) {
			kept = append(kept, t)
		}
	}
	res.Tools = kept
}

// SetChoices gives the gateway what each app gets, and tells at once
// each session whose set changed that its list changed.
func (g *Gateway) SetChoices(c sets.Choices) {
	if len(c.Sets) == 0 && c.Unknown != sets.Nothing {
		g.choices.Store(nil) // every app gets everything: the calls' way is today's
	} else {
		g.choices.Store(&c)
	}
	g.sets.mu.Lock()
	g.sets.byKey = map[string]*encodedList{}
	var tell []string
	for id, cs := range g.sets.live {
		given, _ := g.givenToSession(cs)
		key := givenKey(given)
		if old, ok := g.sets.keys[id]; ok && old != key {
			tell = append(tell, id)
		}
		g.sets.keys[id] = key
	}
	g.sets.mu.Unlock()
	for _, id := range tell {
		for _, m := range []string{string(mcp.MethodNotificationToolsListChanged), mcp.MethodNotificationResourcesListChanged, mcp.MethodNotificationPromptsListChanged} {
			if err := g.mcp.SendNotificationToSpecificClient(id, m, nil); err != nil {
				g.log.Debug("gateway: telling an app its set changed", "err", err)
			}
		}
	}
}

// sessionStarted and sessionEnded keep the live sessions whose set a
// change may change.
func (g *Gateway) sessionStarted(_ context.Context, cs server.ClientSession) {
	given, _ := g.givenToSession(cs)
	g.sets.mu.Lock()
	if g.sets.live == nil {
		g.sets.live, g.sets.keys = map[string]server.ClientSession{}, map[string]string{}
	}
	g.sets.live[cs.SessionID()] = cs
	g.sets.keys[cs.SessionID()] = givenKey(given)
	g.sets.mu.Unlock()
}

func (g *Gateway) sessionEnded(_ context.Context, cs server.ClientSession) {
	g.sets.mu.Lock()
	delete(g.sets.live, cs.SessionID())
	delete(g.sets.keys, cs.SessionID())
	g.sets.mu.Unlock()
}

// SetChoices gives the running gateway what each app gets
// (Gateway.SetChoices).
func (r *Running) SetChoices(c sets.Choices) { r.g.SetChoices(c) }

// appAndSet is the calling app as people know it and, when apps get sets,
// what it gets: "writer (the Writing set)", for the person's questions.
func (g *Gateway) appAndSet(ctx context.Context) string {
	app := callerApp(ctx)
	if given, ok := g.givenTo(ctx); ok {
		if app == "" {
			return "an app (" + given.Name() + ")"
		}
		return app + " (" + given.Name() + ")"
	}
	return app
}

// keepContent keeps whose each offered resource and prompt is, for the
// sets' lists.
func (g *Gateway) keepContent(resources, prompts map[string]string) {
	g.sets.mu.Lock()
	g.sets.resourceOf, g.sets.promptOf = resources, prompts
	g.sets.mu.Unlock()
}

// outsideSetServer says why the session in ctx may not have what (a
// resource or a prompt) of srv, or "" when it may.
func (g *Gateway) outsideSetServer(ctx context.Context, srv, what string) string {
	given, ok := g.givenTo(ctx)
	if !ok || given.HoldsServer(srv) {
		return ""
	}
	if given.Nothing {
		return sets.ErrNothing.Error()
	}
	return fmt.Sprintf("the %s is not in the %s set, which is what this app gets from mcptray; to change what it gets: mcptray app set %s SET|all",
		sanitize.Line(what), given.Set.Name, appOf(ctx))
}

// filterResources and filterPrompts leave out of mcp-go's answers the
// resources and prompts of servers the session's set does not hold.
func (g *Gateway) filterResources(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if res != nil {
		res.Resources = keepHeld(g, ctx, func() map[string]string { return g.sets.resourceOf }, res.Resources, func(r mcp.Resource) string { return r.URI })
	}
}

func (g *Gateway) filterPrompts(ctx context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
	if res != nil {
		res.Prompts = keepHeld(g, ctx, func() map[string]string { return g.sets.promptOf }, res.Prompts, func(p mcp.Prompt) string { return p.Name })
	}
}

// keepHeld is items without those of servers the session's set does not
// hold: of gives (under the sets' lock) each item's server by its key.
// An item whose server is not known is kept, as is every item of a
// session that gets everything.
func keepHeld[T any](g *Gateway, ctx context.Context, of func() map[string]string, items []T, key func(T) string) []T {
	given, ok := g.givenTo(ctx)
	if !ok {
		return items
	}
	g.sets.mu.Lock()
	servers := of()
	g.sets.mu.Unlock()
	kept := make([]T, 0, len(items))
	for _, it := range items {
		if srv, ok := servers[key(it)]; !ok || given.HoldsServer(srv) {
			kept = append(kept, it)
		}
	}
	return kept
}

// keepsFor is what search mode's find keeps for the session in ctx: the
// tools of its set; none when it gets everything.
func (g *Gateway) keepsFor(ctx context.Context) []func(route) bool {
	given, ok := g.givenTo(ctx)
	if !ok {
		return nil
	}
	return []func(route) bool{func(r route) bool { return given.Holds(r.server, r.tool, r.qualified) }}
}
