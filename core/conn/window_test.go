package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// handshakes counts handshakes in flight, and holds each until released or
// its context ends.
type handshakes struct {
	inFlight, most atomic.Int32
	release        chan struct{}
}

func newHandshakes() *handshakes { return &handshakes{release: make(chan struct{})} }

// hold is one handshake: it counts itself in, waits, and counts itself out.
func (h *handshakes) hold(ctx context.Context) error {
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for {
		most := h.most.Load()
		if n <= most || h.most.CompareAndSwap(most, n) {
			break
		}
	}
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestLocalWindowIsThree: with six local servers whose handshakes hang, three
// handshakes are in flight, never a fourth, and each one that ends lets
// exactly one more start. The servers run in-process, where a hanging
// handshake blocks on a channel: inside a synctest bubble, synctest.Wait then
// proves that nothing else is about to start, with no sleep.
func TestLocalWindowIsThree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHandshakes()
		opts := testOptions()
		opts.MaxLocal = 0 // the default, which is the promise
		opts.Builtin = map[string]*server.MCPServer{}
		for i := range 6 {
			hooks := &server.Hooks{}
			hooks.AddOnRequestInitialization(func(ctx context.Context, _ any, msg any) error {
				if isInitialize(msg) {
					return h.hold(ctx)
				}
				return nil
			})
			opts.Builtin[fmt.Sprintf("local-%d", i)] = server.NewMCPServer("local", "1.0.0", server.WithHooks(hooks))
		}
		m := New(opts)
		defer m.Close()
		if err := m.Apply(setOf()); err != nil {
			t.Fatal(err)
		}
		for done := 0; done <= 3; done++ {
			synctest.Wait()
			if n := h.inFlight.Load(); n != 3 {
				t.Fatalf("after %d handshakes ended, %d are in flight; want 3", done, n)
			}
			h.release <- struct{}{} // one handshake ends
		}
		if most := h.most.Load(); most != 3 {
			t.Errorf("at most %d handshakes were in flight; want 3", most)
		}
	})
}

// TestRemoteWindowIsTwenty: with 25 remote servers whose sign-in hangs (the
// token is asked for before initialize leaves), twenty handshakes are in
// flight, never a 21st.
func TestRemoteWindowIsTwenty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHandshakes()
		opts := testOptions()
		opts.MaxRemote = 0 // the default, which is the promise
		opts.Tokens = func(*config.Server) transport.TokenSource { return heldToken{h} }
		var entries []config.Entry
		for i := range 25 {
			// Nothing listens there: the request never leaves.
			entries = append(entries, remoteEntry(fmt.Sprintf("remote-%d", i), fmt.Sprintf("http://127.0.0.1:9/mcp/%d", i), config.HTTP))
		}
		m := New(opts)
		defer m.Close()
		if err := m.Apply(setOf(entries...)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := h.inFlight.Load(); n != 20 {
			t.Fatalf("%d remote handshakes are in flight; want 20", n)
		}
	})
}

// heldToken is a sign-in whose token never comes until its context ends.
type heldToken struct{ h *handshakes }

func (s heldToken) Token(ctx context.Context) (string, error) {
	if err := s.h.hold(ctx); err != nil {
		return "", err
	}
	return "", errors.New("released")
}

// isInitialize reports whether a raw request, as mcp-go's hooks see it, is
// initialize.
func isInitialize(message any) bool {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return false
	}
	var req struct {
		Method mcp.MCPMethod `json:"method"`
	}
	return json.Unmarshal(raw, &req) == nil && req.Method == mcp.MethodInitialize
}

// TestWindowWarmsOne: while every place is taken, the next in line (the
// longest expected) may start its process, but not its handshake; when a
// place frees, it goes to the one warming up, and the next in line warms
// up in its stead. A warming ticket that gives up lets the next one warm.
func TestWindowWarmsOne(t *testing.T) {
	w := newWindow(2, 1)
	expect := []time.Duration{100, 100, 50, 300, 200}
	var tk []*ticket
	for _, e := range expect {
		tk = append(tk, w.enqueue(e*time.Millisecond))
	}
	w.dispatch()
	is := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	gone := map[int]bool{}
	release := func(i int) { tk[i].release(); gone[i] = true }
	state := func() (ready, warm []int) {
		for i, x := range tk {
			switch {
			case gone[i]:
			case is(x.ready):
				ready = append(ready, i)
			case is(x.warm):
				warm = append(warm, i)
			}
		}
		return ready, warm
	}
	check := func(step string, wantReady, wantWarm []int) {
		t.Helper()
		ready, warm := state()
		if !slices.Equal(ready, wantReady) || !slices.Equal(warm, wantWarm) {
			t.Fatalf("%s: handshaking %v, warming %v; want %v and %v", step, ready, warm, wantReady, wantWarm)
		}
	}
	check("at first", []int{3, 4}, []int{0})
	release(4)
	check("after one handshake", []int{0, 3}, []int{1})
	release(1) // gives up while warming
	check("after the warming one gave up", []int{0, 3}, []int{2})
	release(0)
	release(3)
	check("after the rest", []int{2}, nil)
	if w.running != 1 || len(w.warmers) != 0 || len(w.queue) != 0 {
		t.Errorf("running %d, warming %d, queued %d; want 1, 0, 0", w.running, len(w.warmers), len(w.queue))
	}
}
