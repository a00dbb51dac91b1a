package hub

import (
	"context"
	"testing"
	"time"
)

// deadline bounds every wait: one that reaches it has failed.
const deadline = 10 * time.Second

func receive[T any](t *testing.T, ch <-chan T) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(deadline):
		t.Fatal("nothing arrived")
		var zero T
		return zero, false
	}
}

// TestHintsCoalesce: with the default room of one, a burst of publishes
// reaches a subscriber that did not read as one value, and the sender
// never waits.
func TestHintsCoalesce(t *testing.T) {
	var h Hub[struct{}]
	ch := h.Subscribe(t.Context())
	for range 100 {
		h.Publish(struct{}{})
	}
	if _, ok := receive(t, ch); !ok {
		t.Fatal("the channel closed")
	}
	select {
	case <-ch:
		t.Error("a second value waited: the burst did not coalesce")
	default:
	}
}

// TestBufferKeepsOrder: a subscriber with room for several gets them in
// the order published, and one that is full misses the rest.
func TestBufferKeepsOrder(t *testing.T) {
	h := Hub[int]{Buffer: 3}
	ch := h.Subscribe(t.Context())
	for i := range 5 {
		h.Publish(i)
	}
	for want := range 3 {
		if got, _ := receive(t, ch); got != want {
			t.Errorf("got %d, want %d", got, want)
		}
	}
	select {
	case v := <-ch:
		t.Errorf("got %d after the buffer filled", v)
	default:
	}
}

// TestEnds: a subscriber's channel closes when its context ends, and
// every channel closes with the hub; a subscriber after Close gets a
// closed channel. Len and Publish count only the living.
func TestEnds(t *testing.T) {
	var h Hub[string]
	if h.Publish("nobody") {
		t.Error("Publish with no subscriber said someone was there")
	}
	ctx, cancel := context.WithCancel(context.Background())
	short := h.Subscribe(ctx)
	long := h.Subscribe(t.Context())
	if h.Len() != 2 || !h.Publish("x") {
		t.Fatalf("Len %d after two subscribed", h.Len())
	}
	receive(t, short)
	receive(t, long)
	cancel()
	if _, ok := receive(t, short); ok {
		t.Error("a value came after the subscriber's context ended")
	}
	if h.Len() != 1 {
		t.Errorf("Len %d once one subscriber left", h.Len())
	}
	h.Close()
	if _, ok := receive(t, long); ok {
		t.Error("the channel stayed open after Close")
	}
	if _, ok := receive(t, h.Subscribe(t.Context())); ok {
		t.Error("a subscriber after Close got an open channel")
	}
	h.Publish("after") // does not panic on closed channels
}
