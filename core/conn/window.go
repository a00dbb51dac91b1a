package conn

import (
	"context"
	"sync"
	"time"
)

// A window lets a few connection attempts run at once, as a sliding
// window: as soon as one ends, the next may start, so one slow server
// holds up only its own place and not a whole batch.
//
// Who goes next is the one expected to take longest (its last connect
// time, see history.go), and among equals the one queued first, which for
// the servers of one Apply is the config's order. Starting the slowest
// first is the longest-processing-time rule: the last places to free up
// then hold short attempts, and the whole start ends close to its lower
// bound rather than waiting on one slow server started last.
type window struct {
	mu      sync.Mutex
	size    int
	running int
	queue   []*ticket // waiting, in the order queued
	seq     uint64
}

func newWindow(size int) *window { return &window{size: size} }

// A ticket is one attempt's place in a window's queue, and then its place
// in the window.
type ticket struct {
	w      *window
	expect time.Duration // how long it is expected to take
	seq    uint64
	ready  chan struct{} // closed when it may start
	state  ticketState   // under w.mu
}

type ticketState int

const (
	ticketWaiting ticketState = iota
	ticketRunning
	ticketDone
)

// enqueue puts an attempt expected to take expect in line. Nobody is let
// in until dispatch, so that a batch queued together is ordered together.
func (w *window) enqueue(expect time.Duration) *ticket {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	t := &ticket{w: w, expect: expect, seq: w.seq, ready: make(chan struct{})}
	w.queue = append(w.queue, t)
	return t
}

// dispatch lets in the queued attempts that fit, longest expected first.
func (w *window) dispatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dispatchLocked()
}

func (w *window) dispatchLocked() {
	for w.running < w.size && len(w.queue) > 0 {
		next := 0
		for i, t := range w.queue[1:] {
			if t.expect > w.queue[next].expect {
				next = i + 1 // queue is in seq order: the first of equals stays
			}
		}
		t := w.queue[next]
		w.queue = append(w.queue[:next], w.queue[next+1:]...)
		t.state = ticketRunning
		w.running++
		close(t.ready)
	}
}

// acquire queues an attempt and waits for its place.
func (w *window) acquire(ctx context.Context, expect time.Duration) (*ticket, error) {
	t := w.enqueue(expect)
	w.dispatch()
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// wait waits until the attempt may start. If ctx ends first, the ticket
// leaves the queue (or gives back a place it was given meanwhile).
func (t *ticket) wait(ctx context.Context) error {
	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
		t.release()
		return ctx.Err()
	}
}

// release gives the place back, or leaves the queue when it had none yet;
// the next attempt in line may then start. Releasing twice does nothing.
func (t *ticket) release() {
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	switch t.state {
	case ticketWaiting:
		for i, q := range w.queue {
			if q == t {
				w.queue = append(w.queue[:i], w.queue[i+1:]...)
				break
			}
		}
	case ticketRunning:
		w.running--
		w.dispatchLocked()
	}
	t.state = ticketDone
}
