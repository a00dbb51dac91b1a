package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestPinnedReferenceServers: the reference servers (everything,
// filesystem, memory), configured as npx -y runs them, install pinned
// from the npm registry and run in their sandboxes from their trees.
// Unpinned, the real npx in each server's sandbox installs it through
// mcptray's egress proxy (its runtime declares the npm registry) into a
// cache of the server's own, and it connects; the person's ~/.npm stays
// empty. It logs how long they take to connect: pinned at the first
// start (resolve and install) and at later ones, against npx from its
// own empty cache and from a filled one (bench/README.md). One test, so
// that a test program installs these packages with npx from an empty
// cache once. It needs the npm registry.
func TestPinnedReferenceServers(t *testing.T) {
	takeNpmTurn(t)
	if testing.Short() {
		t.Skip("installs packages from the npm registry")
	}
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules (ABI 4, Linux 6.7)")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	if err := exec.Command("npm", "view", "@modelcontextprotocol/server-memory@2026.8.31", "version", "--cache", t.TempDir()).Run(); err != nil {
		t.Skipf("the npm registry cannot be reached: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string][]string{
		"everything": {"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"},
		"memory":     {"-y", "@modelcontextprotocol/server-memory@2026.8.31"},
	}
	run := func(pinned bool) (first, later time.Duration) {
		h := newHome(t)
		files := filepath.Join(h.dir, "files")
		personal := filepath.Join(h.dir, ".npm")
		for _, dir := range []string{files, personal} {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		cfg := map[string]any{}
		for name, args := range servers {
			cfg[name] = map[string]any{"command": npx, "args": args}
		}
		cfg["filesystem"] = map[string]any{"command": npx, "args": []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", files}}
		h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": cfg})
		start := func() time.Duration {
			t.Helper()
			began := time.Now()
			s := h.start(true, func(o *Options) {
				o.Launcher = self
				o.Conn.ConnectTimeout = 3 * time.Minute // npx from an empty cache, three at once
				o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
				h.ask = func(context.Context, egress.Question) (egress.Reply, error) {
					return egress.Reply{Answer: egress.Deny}, nil
				}
				if pinned {
					o.Packages = &PackageOptions{}
				}
			})
			defer s.Close()
			waitAll(t, s, 3*time.Minute, "everything", "memory", "filesystem")
			took := time.Since(began)
			if !pinned {
				snap, _ := s.Snapshot(t.Context())
				for _, sv := range snap.Servers {
					if sv.Transport == config.Stdio && (sv.Sandbox == nil || !sv.Sandbox.Protection.Network) {
						t.Errorf("%s connected outside the proxy's sandbox: %+v", sv.Name, sv.Sandbox)
					}
				}
			}
			if pinned {
				snap, _ := s.Snapshot(t.Context())
				for _, sv := range snap.Servers {
					if sv.Transport == config.Stdio && (sv.Sandbox == nil || !sv.Sandbox.Protection.Files) {
						t.Errorf("%s runs outside its sandbox", sv.Name)
					}
				}
				views, err := s.Packages(t.Context())
				if err != nil || len(views) != 3 {
					t.Fatalf("pinned: %+v %v", views, err)
				}
				for _, v := range views {
					t.Logf("%s: %s", v.Server, v.Words)
				}
			}
			return took
		}
		first, later = start(), start()
		if !pinned {
			for name := range cfg {
				own := filepath.Join(h.paths.ServersDir(), name, "cache", "npm", "_npx")
				if m, _ := filepath.Glob(filepath.Join(own, "*", "node_modules", "@modelcontextprotocol", "server-"+name)); len(m) == 0 {
					t.Errorf("%s's package is not in its own cache %s", name, own)
				}
			}
		}
		if left, _ := os.ReadDir(personal); len(left) != 0 {
			t.Errorf("npm wrote in the person's ~/.npm: %v", left)
		}
		return first, later
	}
	pf, pl := run(true)
	nf, nl := run(false)
	t.Logf("three reference servers connected: pinned, first start %v, later %v; npx -y, its own cache empty %v, filled %v",
		pf.Round(10*time.Millisecond), pl.Round(10*time.Millisecond), nf.Round(10*time.Millisecond), nl.Round(10*time.Millisecond))
	// The goal, a later pinned start no slower than npx's warm one, is
	// measured on a quiet machine and recorded in bench/README.md: here
	// the load of the other tests moves both by seconds (a run beside
	// four packages' tests had the pinned start at 5.1 s, npx's at 2.4 s).
}

// waitAll waits until every server named is connected.
func waitAll(t *testing.T, s *Service, within time.Duration, names ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	notices, _ := s.Subscribe(ctx)
	for {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var waiting []string
		for _, n := range names {
			sv, _ := snap.Find(n)
			if sv.State == conn.Failed {
				t.Fatalf("%s failed: %s\n%s", n, sv.Reason, sv.Stderr)
			}
			if sv.State != conn.Connected {
				waiting = append(waiting, n+" ("+sv.Reason+")")
			}
		}
		if len(waiting) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("not connected within %v: %s", within, strings.Join(waiting, ", "))
		case <-notices:
		}
	}
}
