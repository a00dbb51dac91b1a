package gateway

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/service"
)

// An app's first lists wait for the servers that are still starting. Many
// apps list tools once, when they start, and never again, whatever
// list_changed says; an app that starts with mcptray (mcptray stdio starts
// it when none runs, as after login) would otherwise be given the
// built-in server's tool alone. So a session's first tools/list,
// prompts/list and resources/list wait until no server that should run is
// still starting — pending or connecting, or failed once and about to
// try again — or until firstListWait has passed since the first of them.
// A server that waits for the person (approval, sign-in) holds nothing.
// Later lists, and every call, are answered at once, as before.

// firstListWait bounds how long an app's first list waits. Apps give a
// server about 10 s to start and answer (Codex's startup_timeout_sec,
// mcptools' initialize), and from an app's start that time also covers
// mcptray stdio starting mcptray; 8 s leaves those 2 s and still lets a
// server that starts through npx or uvx from their cache make it.
const firstListWait = 8 * time.Second

// warmup says whether any server is still starting, as of the snapshot
// the gateway applied last. Until the first Sync nothing is known, which
// counts as starting.
type warmup struct {
	mu    sync.Mutex
	ready chan struct{} // closed while no server is starting
}

func newWarmup() *warmup { return &warmup{ready: make(chan struct{})} }

// set records whether servers are starting.
func (w *warmup) set(starting bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.ready:
		if starting {
			w.ready = make(chan struct{})
		}
	default:
		if !starting {
			close(w.ready)
		}
	}
}

// done is closed once no server is starting.
func (w *warmup) done() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ready
}

// starting says whether a server of snap that should run is still
// starting: pending (connecting), or in its first retry.
func starting(snap service.Snapshot) bool {
	if snap.Paused {
		return false
	}
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if !sv.Runnable || sv.Suppressed != "" {
			continue
		}
		switch {
		case sv.State == conn.Pending && sv.Failures <= 1,
			sv.State == conn.Failed && sv.Failures == 1:
			return true
		}
	}
	return false
}

// firstLists is what a session knows of its first lists.
type firstLists struct {
	done     atomic.Bool // its first lists were answered: no more waiting
	mu       sync.Mutex
	deadline time.Time // firstListWait after its first list
}

// isList says whether method is one of the lists an app's first waits.
func isList(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourcesList, mcp.MethodResourcesTemplatesList:
		return true
	}
	return false
}

// waitFirstList waits, for one of the session's first lists, until no
// server is starting, firstListWait after its first list, or ctx's end.
// Once one has waited, the session's lists no longer do.
func (g *Gateway) waitFirstList(ctx context.Context, f *firstLists) {
	if f.done.Load() {
		return
	}
	f.mu.Lock()
	if f.deadline.IsZero() {
		f.deadline = time.Now().Add(firstListWait)
	}
	deadline := f.deadline
	f.mu.Unlock()
	select {
	case <-g.warm.done():
	default:
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-g.warm.done():
		case <-t.C:
			g.log.Debug("gateway: an app's first list did not wait longer for servers still starting", "waited", firstListWait)
		case <-ctx.Done():
		}
		t.Stop()
	}
	f.done.Store(true)
}
