package control

import (
	"context"
	"net/http"
)

// Focus asks an open window to come forward and show server ("" for
// none). It reports whether a window was there to ask.
func (s *Endpoint) Focus(server string) bool {
	return s.FocusOn(WindowRequest{Server: server})
}

// FocusOn asks an open window to come forward and show what req says. It
// reports whether a window was there to ask.
func (s *Endpoint) FocusOn(req WindowRequest) bool {
	return s.focus.Publish(req)
}

// WindowOpen reports whether a window follows this instance.
func (s *Endpoint) WindowOpen() bool { return s.focus.Len() > 0 }

// focusStream passes "show the window at this server" requests to the open
// window, which follows them over GET /v1/focus. One waiting request
// covers the next.
func (s *Endpoint) focusStream(w http.ResponseWriter, r *http.Request) {
	writeStream(w, r, s.focus.Subscribe(r.Context()))
}

// FocusRequests returns the running mcptray's requests for the window to
// come forward, each with what to show: a server, a bundle's install
// dialog, or nothing. While it is followed, the running mcptray counts
// the window as open. The channel closes when ctx ends or the running
// mcptray goes away.
func (c *Client) FocusRequests(ctx context.Context) (<-chan WindowRequest, error) {
	out := make(chan WindowRequest, 1)
	err := readStream(ctx, c, "focus", func(wr WindowRequest) bool {
		select {
		case out <- wr:
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
