package gateway

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

// The gateway's faces, as AppSession.Face names them.
const (
	FaceStdio = "stdio"
	FaceHTTP  = "http"
)

// faceKey marks a request's context with the face it came through.
type faceKey struct{}

// withFace marks every request h serves as come through face.
func withFace(h http.Handler, face string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), faceKey{}, face)))
	})
}

// faceOf is the face a request came through: the stdio face's stream
// (mcptray stdio) unless the HTTP face marked it.
func faceOf(ctx context.Context) string {
	if f, ok := ctx.Value(faceKey{}).(string); ok {
		return f
	}
	return FaceStdio
}

// maxEnded is how many ended sessions are remembered, the newest.
const maxEnded = 16

// appSessions records each app session's clientInfo, face, times and the
// number of tools it was last given, for the window's Apps view. It
// records no arguments and no results.
type appSessions struct {
	mu      sync.Mutex
	now     func() time.Time // time.Now; read with mu held (a test sets it while requests run: setNow)
	byID    map[string]*service.AppSession
	ended   []service.AppSession  // newest last
	modern  map[string]*modernApp // sessionless apps, by face and client (modern.go)
	changed func()                // Options.AppsChanged: tells the service
}

// setNow sets the clock the record reads.
func (a *appSessions) setNow(now func() time.Time) {
	a.mu.Lock()
	a.now = now
	a.mu.Unlock()
}

func newAppSessions() *appSessions {
	return &appSessions{now: time.Now, byID: map[string]*service.AppSession{}, modern: map[string]*modernApp{}}
}

// seen records that session id was active now.
func (a *appSessions) seen(id string) {
	a.mu.Lock()
	if s, ok := a.byID[id]; ok {
		s.LastSeen = a.now()
	}
	a.mu.Unlock()
}

// addHooks adds the hooks that keep the record to h.
func (a *appSessions) addHooks(h *server.Hooks) {
	h.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		id := sessionID(ctx)
		if id == "" || req == nil {
			return
		}
		s := &service.AppSession{Client: req.Params.ClientInfo.Name, ClientVersion: req.Params.ClientInfo.Version,
			Face: faceOf(ctx)}
		if k, ok := server.ClientSessionFromContext(ctx).(knower); ok {
			s.Named, _ = k.knownApp()
		}
		if c, ok := clientOfSession(s); ok {
			s.App, s.ToolLimit = c.App, c.ToolLimit
		}
		a.mu.Lock()
		s.Started = a.now()
		s.LastSeen = s.Started
		a.byID[id] = s
		a.mu.Unlock()
		a.tell()
	})
	h.AddAfterListTools(func(ctx context.Context, _ any, req *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		if res == nil {
			return
		}
		n, page := len(res.Tools), req != nil && req.Params.Cursor != ""
		if id := sessionID(ctx); id != "" {
			a.gaveTools(id, n, page)
		} else if a.modernTools(ctx, n, page) {
			a.tell()
		}
	})
	h.AddBeforeAny(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any) {
		id := sessionID(ctx)
		if id == "" {
			if a.seenModern(ctx) {
				a.tell()
			}
			return
		}
		a.seen(id)
	})
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, _ *mcp.SubscriptionsListenRequest) {
		a.listening(ctx)
	})
	h.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		a.mu.Lock()
		s, ok := a.byID[cs.SessionID()]
		if ok {
			delete(a.byID, cs.SessionID())
			s.Ended = true
			a.ended = append(a.ended, *s)
			if len(a.ended) > maxEnded {
				a.ended = slices.Delete(a.ended, 0, len(a.ended)-maxEnded)
			}
		}
		a.mu.Unlock()
		if ok {
			a.tell()
		}
	})
}

// gaveTools records that session id was given n tools by tools/list, in a
// further page of the list when page is set.
func (a *appSessions) gaveTools(id string, n int, page bool) {
	if id == "" {
		return
	}
	a.mu.Lock()
	s, ok := a.byID[id]
	changed := ok && a.setTools(s, n, page)
	a.mu.Unlock()
	if changed {
		a.tell()
	}
}

// setTools records that s was given n tools, in a further page of the list
// when page is set, and reports whether its count changed; a.mu is held.
func (a *appSessions) setTools(s *service.AppSession, n int, page bool) bool {
	if page {
		n += s.Tools
	}
	changed := !s.Listed || s.Tools != n
	s.Listed, s.Tools, s.LastSeen = true, n, a.now()
	s.ToolWarning = ""
	if c, known := clientOfSession(s); known {
		s.ToolWarning = c.ToolWarning(n)
	}
	return changed
}

// clientOfSession is the app of session s: the one mcptray named it when
// it did (its clientInfo, which any program can claim, then counts for
// nothing), else the one its clientInfo says; false when unknown.
func clientOfSession(s *service.AppSession) (Client, bool) {
	if s.Named == "" {
		return ClientOf(s.Client)
	}
	for _, c := range Clients {
		if config.AppKeyFor(c.App) == s.Named {
			return c, true
		}
	}
	return Client{}, false
}

// tell tells the service that the sessions changed.
func (a *appSessions) tell() {
	a.mu.Lock()
	fn := a.changed
	a.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// list returns the live sessions, then the ended ones, newest first.
func (a *appSessions) list() []service.AppSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	live, idle := a.modernSessions(a.now())
	out := make([]service.AppSession, 0, len(a.byID)+len(a.ended)+len(a.modern))
	for _, s := range a.byID {
		out = append(out, *s)
	}
	out = append(out, live...)
	slices.SortFunc(out, func(x, y service.AppSession) int { return y.Started.Compare(x.Started) })
	for i := len(a.ended) - 1; i >= 0; i-- {
		out = append(out, a.ended[i])
	}
	slices.SortFunc(idle, func(x, y service.AppSession) int { return y.LastSeen.Compare(x.LastSeen) })
	return append(out, idle...)
}

func sessionID(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

// Sessions are the apps' sessions with the gateway since it started: the
// live ones, newest first, then the last ones that ended.
func (g *Gateway) Sessions() []service.AppSession { return g.apps.list() }
