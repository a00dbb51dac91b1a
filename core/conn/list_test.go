package conn

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestNewestRelistWins: two re-lists of a server's tools whose answers come
// back in the wrong order leave the newer list in place, not the older one
// that happened to arrive last.
func TestNewestRelistWins(t *testing.T) {
	t.Parallel()
	var answered atomic.Int32
	held, release := make(chan struct{}), make(chan struct{})
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
		if answered.Add(1) == 2 { // the first re-list: its answer waits
			close(held)
			<-release
		}
	})
	// No listChanged capability: the test starts each re-list itself.
	srv := server.NewMCPServer("lists", "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	tool := func(name string) (mcp.Tool, server.ToolHandlerFunc) {
		return mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(name), nil
		}
	}
	srv.AddTool(tool("a"))
	opts := testOptions()
	opts.Builtin = map[string]*server.MCPServer{"lists": srv}
	m := newTestManager(t, opts)
	if err := m.Apply(setOf()); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "lists", Connected)
	c, err := m.conn("lists")
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()

	srv.AddTool(tool("b"))
	var first sync.WaitGroup
	first.Add(1)
	go func() { defer first.Done(); c.relist(sess) }() // lists a, b
	select {
	case <-held:
	case <-time.After(deadline):
		t.Fatal("the first re-list never reached the server")
	}
	srv.AddTool(tool("c"))
	c.relist(sess) // lists a, b, c and shows it
	close(release)
	first.Wait() // its older list arrives last

	info, _ := m.Report().Find("lists")
	var names []string
	for _, tl := range info.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"a", "b", "c"}; !slices.Equal(names, want) {
		t.Errorf("tools %q after both re-lists, want the newer list %q", names, want)
	}
}

// TestSnapshotShowsHiddenName: a server whose name hides characters is
// marked in the snapshot front ends draw from.
func TestSnapshotShowsHiddenName(t *testing.T) {
	t.Parallel()
	e := stdioEntry("goo?gle")
	e.NameHidden = true
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(e, stdioEntry("google"))); err != nil {
		t.Fatal(err)
	}
	for name, hidden := range map[string]bool{"goo?gle": true, "google": false} {
		if info, ok := m.Report().Find(name); !ok || info.NameHidden != hidden {
			t.Errorf("%s: NameHidden = %v (found %v), want %v", name, info.NameHidden, ok, hidden)
		}
	}
}
