package control

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
)

// focusHub passes "show the window at this server" requests to the open
// window, which follows them over GET /v1/focus.
type focusHub struct {
	mu   sync.Mutex
	subs map[chan string]struct{}
}

// Focus asks an open window to come forward and show server ("" for
// none). It reports whether a window was there to ask.
func (s *Server) Focus(server string) bool {
	h := &s.focus
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- server:
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
	ch := make(chan string, 1)
	h := &s.focus
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan string]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}()
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case server := <-ch:
			if enc.Encode(windowRequest{Server: server}) != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

// FocusRequests returns the running mcptray's requests for the window to
// come forward, each with the server to show ("" for none). While it is
// followed, the running mcptray counts the window as open. The channel
// closes when ctx ends or the running mcptray goes away.
func (c *Client) FocusRequests(ctx context.Context) (<-chan string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://mcptray/v1/focus", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	out := make(chan string, 1)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var wr windowRequest
			if dec.Decode(&wr) != nil {
				return
			}
			select {
			case out <- wr.Server:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
