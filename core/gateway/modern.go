package gateway

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/service"
)

// Apps on MCP's sessionless revision (2026-07-28) have no session: each
// request stands alone and names its client in its _meta
// (io.modelcontextprotocol/clientInfo), which mcp-go hands the hooks as
// server.RequestProtocolInfo. Such an app is recorded by its client name
// and face. It is in use while it holds a subscriptions/listen stream open,
// or was seen within modernIdle; otherwise it shows as ended, and a request
// starts it anew. A client that does not name itself is not recorded.

// modernIdle is how long a sessionless app that holds no listening stream
// counts as in use after its last request.
const modernIdle = 10 * time.Minute

// maxModern bounds the sessionless apps recorded; beyond it the one seen
// longest ago is forgotten.
const maxModern = 16

// modernApp is the record of one sessionless app.
type modernApp struct {
	s         service.AppSession
	listening int // its open subscriptions/listen streams
}

// modernKey is the record's key for a sessionless request's client, with
// the clientInfo it sent; "" when the request is not sessionless or names
// no client. A request with an app's own token is keyed by that app too:
// another program claiming its clientInfo is another record.
func modernKey(ctx context.Context) (string, *mcp.Implementation) {
	info := server.RequestProtocolInfoFromContext(ctx)
	if info == nil || !info.Modern || info.ClientInfo == nil || info.ClientInfo.Name == "" {
		return "", nil
	}
	key := faceOf(ctx) + "\x00" + info.ClientInfo.Name
	if app, ok := requestApp(ctx); ok {
		key += "\x00" + app
	}
	return key, info.ClientInfo
}

// namedApp is the name people know the app mcptray names app by:
// "Cursor" for cursor, or app itself.
func namedApp(app string) string {
	if c, known := clientOfSession(&service.AppSession{Named: app}); known {
		return c.App
	}
	return app
}

// live says whether m is in use at now.
func (m *modernApp) live(now time.Time) bool {
	return m.listening > 0 || now.Sub(m.s.LastSeen) < modernIdle
}

// seenModern records a sessionless request of the client ctx names, and
// reports whether the app arrived (new, or back after idling).
func (a *appSessions) seenModern(ctx context.Context) bool {
	key, info := modernKey(ctx)
	if key == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	m, ok := a.modern[key]
	switch {
	case !ok:
		m = &modernApp{s: service.AppSession{Client: info.Name, Face: faceOf(ctx)}}
		m.s.Named, _ = requestApp(ctx)
		if c, known := clientOfSession(&m.s); known {
			m.s.App, m.s.ToolLimit = c.App, c.ToolLimit
		}
		a.forgetModern()
		a.modern[key] = m
	case m.live(now):
		m.s.LastSeen, m.s.ClientVersion = now, info.Version
		return false
	}
	m.s.ClientVersion, m.s.Started, m.s.LastSeen = info.Version, now, now
	return true
}

// forgetModern makes room for one more sessionless app; a.mu is held.
func (a *appSessions) forgetModern() {
	if len(a.modern) < maxModern {
		return
	}
	// The one seen longest ago, sparing those that listen.
	oldest := ""
	for k, m := range a.modern {
		if o := a.modern[oldest]; o == nil || (m.listening == 0 && o.listening > 0) ||
			((m.listening == 0) == (o.listening == 0) && m.s.LastSeen.Before(o.s.LastSeen)) {
			oldest = k
		}
	}
	delete(a.modern, oldest)
}

// listening records that the client ctx names holds a subscriptions/listen
// stream open until ctx ends.
func (a *appSessions) listening(ctx context.Context) {
	key, _ := modernKey(ctx)
	if key == "" {
		return
	}
	a.mu.Lock()
	m, ok := a.modern[key]
	if ok {
		m.listening++
	}
	a.mu.Unlock()
	if !ok {
		return
	}
	a.tell()
	go func() {
		<-ctx.Done() // mcp-go ends a request's context when it is answered
		a.mu.Lock()
		m.listening--
		m.s.LastSeen = a.now()
		a.mu.Unlock()
		a.tell()
	}()
}

// modernSessions are the sessionless apps' records as sessions at now: the
// idle ones ended.
func (a *appSessions) modernSessions(now time.Time) (live, ended []service.AppSession) {
	for _, m := range a.modern {
		s := m.s
		if m.live(now) {
			live = append(live, s)
		} else {
			s.Ended = true
			ended = append(ended, s)
		}
	}
	return live, ended
}

// modernTools records that the client ctx names was given n tools.
func (a *appSessions) modernTools(ctx context.Context, n int, page bool) bool {
	key, _ := modernKey(ctx)
	if key == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.modern[key]
	if !ok {
		return false
	}
	return a.setTools(&m.s, n, page)
}
