package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// mcp-go's streamable HTTP server sends roots/list and
// sampling/createMessage to an app on the app's listening stream (its GET)
// only, never on the call's own stream as it does elicitation/create. An
// app that declared roots or sampling but keeps no listening stream open
// would never see such a request, and the server would wait for its answer
// until the call timed out. So the gateway counts each session's open
// listening streams, and passes those requests to an app over streamable
// HTTP only while one is open, or opens within listenGrace (an app may call
// a tool before its stream, opened after initialize, is up); otherwise they
// go where they would without the app.

// listenGrace is how long a request waits for the app's listening stream.
const listenGrace = 2 * time.Second

// listeners counts the open listening streams of each session.
type listeners struct {
	mu      sync.Mutex
	open    map[string]int
	changed chan struct{} // closed and replaced on every change
}

func newListeners() *listeners {
	return &listeners{open: map[string]int{}, changed: make(chan struct{})}
}

func (l *listeners) add(id string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open[id] += n
	if l.open[id] <= 0 {
		delete(l.open, id)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait waits until session id has a listening stream open, and reports
// whether it has; false when ctx ends first.
func (l *listeners) wait(ctx context.Context, id string) bool {
	for {
		l.mu.Lock()
		open, changed := l.open[id] > 0, l.changed
		l.mu.Unlock()
		if open {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// listenerKey marks the context of a POST served over streamable HTTP with
// the session's listening streams.
type listenerKey struct{}

type sessionStreams struct {
	l  *listeners
	id string
}

// track counts the listening streams next serves, and marks every POST of
// a session with them, for listensForRequests.
func (l *listeners) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionHeader)
		switch {
		case id == "":
		case r.Method == http.MethodGet:
			l.add(id, 1)
			defer l.add(id, -1)
		case r.Method == http.MethodPost:
			r = r.WithContext(context.WithValue(r.Context(), listenerKey{}, sessionStreams{l, id}))
		}
		next.ServeHTTP(w, r)
	})
}

// listensForRequests reports whether the app whose request ctx serves can
// be sent roots/list and sampling/createMessage: over streamable HTTP when
// it has a listening stream open, or one opens within listenGrace; any
// other session (one not served by the gateway's HTTP handler) carries them
// itself.
func listensForRequests(ctx context.Context) bool {
	s, ok := ctx.Value(listenerKey{}).(sessionStreams)
	if !ok {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, listenGrace)
	defer cancel()
	return s.l.wait(ctx, s.id)
}
