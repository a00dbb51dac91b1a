package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestNpxThroughTheProxy: the reference server, run with the real npx in
// its sandbox, installs itself through mcptray's egress proxy (its runtime
// declares the npm registry) into a cache of its own and connects; the
// person's ~/.npm stays empty. It logs its first start, with that cache
// empty, and a second one with it filled (what a filled shared ~/.npm gave
// before). It needs the npm registry.
func TestNpxThroughTheProxy(t *testing.T) {
	takeNpmTurn(t)
	if testing.Short() {
		t.Skip("installs a package from the npm registry")
	}
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules (ABI 4, Linux 6.7)")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	personal := filepath.Join(h.dir, ".npm")
	if err := os.MkdirAll(personal, 0o700); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": npx, "args": []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}},
	}})
	start := func() time.Duration {
		t.Helper()
		began := time.Now()
		s := h.start(true, func(o *Options) {
			o.Launcher = self
			o.Conn.ConnectTimeout = 3 * time.Minute // npx from an empty cache, beside other tests
			o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
			h.ask = func(context.Context, egress.Question) (egress.Reply, error) {
				return egress.Reply{Answer: egress.Deny}, nil
			}
		})
		defer s.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
		defer cancel()
		notices, _ := s.Subscribe(ctx)
		for {
			snap, err := s.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sv, _ := snap.Find("everything")
			if sv.State == conn.Connected {
				if sv.Sandbox == nil || !sv.Sandbox.Protection.Network {
					t.Errorf("it connected outside the proxy's sandbox: %+v", sv.Sandbox)
				}
				return time.Since(began)
			}
			if sv.State == conn.Failed {
				t.Fatalf("it failed: %s\n%s", sv.Reason, sv.Stderr)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("not connected in 3 minutes: %s", brief(snap))
			case <-notices:
			}
		}
	}
	cold := start()
	warm := start()
	t.Logf("connected through the proxy: first start %v (its own cache empty), second %v (filled)", cold.Round(10*time.Millisecond), warm.Round(10*time.Millisecond))
	own := filepath.Join(h.paths.ServersDir(), "everything", "cache", "npm", "_npx")
	if m, _ := filepath.Glob(filepath.Join(own, "*", "node_modules", "@modelcontextprotocol", "server-everything")); len(m) == 0 {
		t.Errorf("the package is not in its own cache %s", own)
	}
	if left, _ := os.ReadDir(personal); len(left) != 0 {
		t.Errorf("npx wrote in the person's ~/.npm: %v", left)
	}
}
