package control

import (
	"context"
	"net/http"
	"sync"
)

// focusHub passes "show the window at this server" requests to the open
// window, which follows them over GET /v1/focus.
type focusHub struct {
	mu   sync.Mutex
	subs map[chan windowRequest]struct{}
}

// Focus asks an open window to come forward and show server ("" for
// none). It reports whether a window was there to ask.
func (s *Server) Focus(server string) bool {
	h := &s.focus
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- windowRequest{Server: server}:
		default: // it has one waiting already
		}
	}
	return len(h.subs) > 0
}

// WindowOpen reports whether a window follows this instance.
func (s *Server) WindowOpen() bool {
	s.focus.mu.Lock()
	defer s.focus.mu.Unlock()
	return len(s.focus.subs) > 0
}

func (s *Server) focusStream(w http.ResponseWriter, r *http.Request) {
	ch := make(chan windowRequest, 1)
	h := &s.focus
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan windowRequest]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}()
	writeStream(w, r, ch)
}

// FocusRequests returns the running mcptray's requests for the window to
// come forward, each with the server to show ("" for none). While it is
// followed, the running mcptray counts the window as open. The channel
// closes when ctx ends or the running mcptray goes away.
func (c *Client) FocusRequests(ctx context.Context) (<-chan string, error) {
	out := make(chan string, 1)
	err := readStream(ctx, c, "focus", func(wr windowRequest) bool {
		select {
		case out <- wr.Server:
			return true
		case <-ctx.Done():
			return false
		}
	}, func() { close(out) })
	if err != nil {
		return nil, err
	}
	return out, nil
}
