package conn

import (
	"context"
	"slices"
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
//
// A window may also have places to warm up in: while every place is
// taken, the next in line may start its process (exec, its runtime's
// start, its packages' inits: tens of milliseconds of CPU, for Node or
// Python servers far more) but not its handshake, which waits for a place.
// The process's own start then overlaps the handshakes ahead of it, most
// of which wait on their servers rather than on the machine, instead of
// standing in line after them. The local window has two such places
// (manager.go): with one, a run of quick handshakes (the short servers
// that longest-first leaves for the end) frees places faster than one
// process warms up, and their start-ups stand in line again.
type window struct {
	mu      sync.Mutex
	size    int
	running int
	warmth  int       // places to warm up in
	warmers []*ticket // warming up, in the order they began
	queue   []*ticket // waiting, in the order queued
	seq     uint64
}

func newWindow(size, warmth int) *window { return &window{size: size, warmth: warmth} }

// A ticket is one attempt's place in a window's queue, then perhaps in its
// warming places, and then its place in the window.
type ticket struct {
	w      *window
	expect time.Duration // how long it is expected to take
	seq    uint64
	warm   chan struct{} // closed when it may start its process
	ready  chan struct{} // closed when it may start its handshake
	state  ticketState   // under w.mu
}

type ticketState int

const (
	ticketWaiting ticketState = iota
	ticketWarming
	ticketRunning
	ticketDone
)

// enqueue puts an attempt expected to take expect in line. Nobody is let
// in until dispatch, so that a batch queued together is ordered together.
func (w *window) enqueue(expect time.Duration) *ticket {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	t := &ticket{w: w, expect: expect, seq: w.seq, warm: make(chan struct{}), ready: make(chan struct{})}
	w.queue = append(w.queue, t)
	return t
}

// dispatch lets in the attempts that fit: those warming up first, since
// their processes already run, then the queued ones, longest expected
// first; and while the window is full, the next in line may warm up.
func (w *window) dispatch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dispatchLocked()
}

func (w *window) dispatchLocked() {
	for w.running < w.size {
		var t *ticket
		switch {
		case len(w.warmers) > 0:
			t, w.warmers = w.warmers[0], w.warmers[1:]
		case len(w.queue) > 0:
			t = w.takeNext()
			close(t.warm)
		default:
			return
		}
		t.state = ticketRunning
		w.running++
		close(t.ready)
	}
	for len(w.warmers) < w.warmth && len(w.queue) > 0 {
		t := w.takeNext()
		t.state = ticketWarming
		w.warmers = append(w.warmers, t)
		close(t.warm)
	}
}

// takeNext takes the queued attempt expected to take longest out of the
// queue; the queue must not be empty.
func (w *window) takeNext() *ticket {
	next := 0
	for i, t := range w.queue[1:] {
		if t.expect > w.queue[next].expect {
			next = i + 1 // queue is in seq order: the first of equals stays
		}
	}
	t := w.queue[next]
	w.queue = append(w.queue[:next], w.queue[next+1:]...)
	return t
}

// wait waits until the attempt may start its handshake. If ctx ends
// first, the ticket leaves the queue (or gives back a place it was given
// meanwhile).
func (t *ticket) wait(ctx context.Context) error { return t.waitFor(ctx, t.ready) }

// waitWarm waits until the attempt may start its process: a place to warm
// up in, or its place in the window.
func (t *ticket) waitWarm(ctx context.Context) error { return t.waitFor(ctx, t.warm) }

func (t *ticket) waitFor(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
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
		w.queue = slices.DeleteFunc(w.queue, func(q *ticket) bool { return q == t })
	case ticketWarming:
		w.warmers = slices.DeleteFunc(w.warmers, func(q *ticket) bool { return q == t })
		w.dispatchLocked()
	case ticketRunning:
		w.running--
		w.dispatchLocked()
	}
	t.state = ticketDone
}
