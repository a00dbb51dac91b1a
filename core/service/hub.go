package service

import (
	"context"
	"sync"
)

// hub hands change notices to subscribers. A notice is only a hint to take
// a new Snapshot, so each subscriber holds at most one: a burst of changes
// reaches a slow front end as one notice, and the sender never blocks.
type hub struct {
	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	closed bool
}

func (h *hub) subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		close(ch)
		return ch
	}
	if h.subs == nil {
		h.subs = map[chan struct{}]struct{}{}
	}
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		if _, ok := h.subs[ch]; ok { // closeAll may have closed it already
			delete(h.subs, ch)
			close(ch)
		}
		h.mu.Unlock()
	}()
	return ch
}

func (h *hub) publish() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default: // one notice is already waiting; it covers this one
		}
	}
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		close(ch)
		delete(h.subs, ch)
	}
}
