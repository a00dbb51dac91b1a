package control

import (
	"context"
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

// Pend keeps req for the window that is starting and does not follow
// focus requests yet: it gets req first when it does, so that a bundle
// opened from the file manager in that moment is not lost. A window that
// follows already gets it at once. The newest pending request wins.
func (s *Endpoint) Pend(req WindowRequest) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	if s.focus.Publish(req) {
		return
	}
	s.pending = &req
}

// WindowOpen reports whether a window follows this instance.
func (s *Endpoint) WindowOpen() bool { return s.focus.Len() > 0 }

// focusStream passes "show the window at this server" requests to the open
// window, which follows them over GET /v1/focus, the pending one first.
// One waiting request covers the next.
func (s *Endpoint) focusStream(ctx context.Context) (<-chan WindowRequest, []WindowRequest, error) {
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	ch := s.focus.Subscribe(ctx)
	var first []WindowRequest
	if s.pending != nil {
		first, s.pending = []WindowRequest{*s.pending}, nil
	}
	return ch, first, nil
}

// FocusRequests returns the running mcptray's requests for the window to
// come forward, each with what to show: a server, a bundle's install
// dialog, or nothing. While it is followed, the running mcptray counts
// the window as open. The channel closes when ctx ends or the running
// mcptray goes away.
func (c *Client) FocusRequests(ctx context.Context) (<-chan WindowRequest, error) {
	return follow[WindowRequest](ctx, c, "focus", 1, false)
}
