package gateway

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestWorkers runs requests side by side, hands a later one to a worker
// that has finished, and leaves no worker behind when the session ends.
func TestWorkers(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	w := newWorkers(ctx, &wg)

	// A request that waits for the next one: they must run side by side.
	first, second := make(chan struct{}), make(chan struct{})
	w.run(func() {
		select {
		case <-second:
		case <-time.After(10 * time.Second):
			t.Error("the second request did not run while the first waited")
		}
		close(first)
	})
	w.run(func() { close(second) })
	<-first

	// Later requests run, on idle workers or new ones.
	for range 100 {
		done := make(chan struct{})
		w.run(func() { close(done) })
		<-done
	}

	cancel()
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("idle workers did not end with the session")
	}
}
