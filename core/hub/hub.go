// Package hub hands values to every subscriber without ever making the
// sender wait. It is how mcptray's parts say "something changed": the
// connection manager to the service, the service to the window, the tray
// and the gateway, the control endpoint to the window.
//
// Each subscriber has a buffer of its own. A value that finds it full is
// not delivered to that subscriber: values are hints to look again (take a
// new snapshot), or requests a follower this far behind has stopped
// reading, so a slow subscriber holds up nobody.
package hub

import (
	"context"
	"sync"
)

// Hub fans values of type T out to its subscribers. The zero Hub is ready
// to use, with one value's room for each subscriber. It is safe for
// concurrent use.
type Hub[T any] struct {
	// Buffer is each new subscriber's room for values it has not read
	// yet; zero means one, which coalesces a burst of hints into one.
	Buffer int

	mu     sync.Mutex
	subs   map[chan T]struct{}
	closed bool
}

// Subscribe returns a channel that receives the values published from now
// on. It closes when ctx ends or the Hub is closed.
func (h *Hub[T]) Subscribe(ctx context.Context) <-chan T {
	ch := make(chan T, max(h.Buffer, 1))
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		close(ch)
		return ch
	}
	if h.subs == nil {
		h.subs = map[chan T]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok { // Close may have closed it already
			delete(h.subs, ch)
			close(ch)
		}
	})
	return ch
}

// Publish hands v to every subscriber that has room for it, and reports
// whether there was any subscriber at all.
func (h *Hub[T]) Publish(v T) (anyone bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- v:
		default: // full: what is waiting there covers this, or it reads no more
		}
	}
	return len(h.subs) > 0
}

// Len is the number of subscribers.
func (h *Hub[T]) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close closes every subscriber's channel; later subscribers get a closed
// one.
func (h *Hub[T]) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		close(ch)
		delete(h.subs, ch)
	}
}
