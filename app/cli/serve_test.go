package cli

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service"
)

// TestServeSaysServersSettledBeforeItLooked: a server that connected (or
// failed) before mcptray serve first looked at the states has no change
// left to print; serve says its state at once, else "a: connected" never
// appears (a race the e2e tests lost under load).
func TestServeSaysServersSettledBeforeItLooked(t *testing.T) {
	var out bytes.Buffer
	c := &cmdContext{Env: Env{Stdout: &out}}
	c.printSettled(map[string]serverLine{
		"b": {state: service.Connected.String()},
		"a": {state: service.Pending.String()},
		"c": {state: service.Failed.String(), why: "it exited"},
	})
	if got, want := out.String(), "b: connected\nc: failed — it exited\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// connectsAsLooked is a service whose one server connects while serve
// takes its first look: the look still sees it pending, and the service
// notifies those that follow it by then, as *service.Service does.
type connectsAsLooked struct {
	mu        sync.Mutex
	looked    bool
	followers []chan struct{}
}

func (s *connectsAsLooked) Subscribe(ctx context.Context) (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{}, 1)
	s.followers = append(s.followers, ch)
	return ch, nil
}

func (s *connectsAsLooked) Snapshot(context.Context) (service.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	state := service.Connected
	if !s.looked {
		s.looked, state = true, service.Pending
		for _, ch := range s.followers {
			ch <- struct{}{}
		}
	}
	return service.Snapshot{Servers: []service.Server{{Name: "a", State: state}}}, nil
}

// TestServeSeesAServerConnectAsItLooks: a server that connects between
// serve's first look and its subscription had no notice left to come, so
// "a: connected" never appeared (the gateway benchmarks waited for it in
// vain, once in fifteen starts): serve follows before it looks.
func TestServeSeesAServerConnectAsItLooks(t *testing.T) {
	src := &connectsAsLooked{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, notices := lookAndFollow(ctx, ctx, src)
	if got := states(snap)["a"].state; got != service.Pending.String() {
		t.Fatalf("the first look saw a %s, want pending", got)
	}
	select {
	case <-notices:
	case <-ctx.Done():
		t.Fatal("no notice came of a server that connected as serve looked")
	}
	next, _ := src.Snapshot(ctx)
	var out bytes.Buffer
	c := &cmdContext{Env: Env{Stdout: &out}}
	c.printChanges(states(snap), states(next))
	if got, want := out.String(), "a: connected\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
