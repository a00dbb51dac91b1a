package gateway

import (
	"context"
	"net/http"
)

// A killed `mcptray stdio` (its app crashed, or was killed with it) never
// sends the DELETE that ends its session, and the app would show as in use
// for a day, until the session's idle time ran out. Its listening stream
// (GET) ends with it, though, and a bridge whose stream ends stops: so on
// the control endpoint, the end of a session's listening stream, when the
// client went away, ends the session as its DELETE would. The HTTP face is
// left alone: an app there may open a new stream for the same session.

// endWithStream ends a stdio-face session whose listening stream the client
// dropped, through next's own DELETE handling.
func endWithStream(ids *sessions, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		id := r.Header.Get(sessionHeader)
		if r.Method != http.MethodGet || faceOf(r.Context()) != FaceStdio || r.Context().Err() == nil || !ids.known(id) {
			return
		}
		del, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodDelete, r.URL.String(), nil)
		if err != nil {
			return
		}
		for _, h := range []string{sessionHeader, "Mcp-Protocol-Version"} {
			if v := r.Header.Get(h); v != "" {
				del.Header.Set(h, v)
			}
		}
		next.ServeHTTP(discard{}, del)
	})
}

// discard is a ResponseWriter for a request nobody reads the answer to.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
