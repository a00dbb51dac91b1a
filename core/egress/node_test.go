package egress

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestNodeHonoursProxy(t *testing.T) {
	for v, want := range map[string]bool{
		"v20.20.2": false, "v22.20.0": false, "v22.21.0": true, "v23.11.0": false,
		"v24.4.1": false, "v24.5.0": true, "v25.0.0": true, "nonsense": false,
	} {
		if got := nodeHonoursProxy(v); got != want {
			t.Errorf("nodeHonoursProxy(%q) = %v, want %v", v, got, want)
		}
	}
}

// runVersion runs a test's own node: mcptray's runs it in the server's
// sandbox (core/service).
func runVersion(ctx context.Context, program string) (string, error) {
	out, err := exec.CommandContext(ctx, program, "--version").Output()
	return string(out), err
}

// TestNodeIgnoresProxy: npx and node are looked up on the server's PATH
// and asked their version; other runtimes are not Node's business. A
// real node (this machine's, and the test peers' Node 22) when there is
// one; a script that prints a version otherwise.
func TestNodeIgnoresProxy(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "node")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho v20.11.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + dir}
	if v, ignores := NodeIgnoresProxy("npx", env, runVersion); v != "v20.11.1" || !ignores {
		t.Errorf("npx on Node 20: %q %v; want v20.11.1, ignores", v, ignores)
	}
	if v, ignores := NodeIgnoresProxy("uvx", env, runVersion); v != "" || ignores {
		t.Errorf("uvx: %q %v; want nothing", v, ignores)
	}
	if _, ignores := NodeIgnoresProxy("npx", []string{"PATH=" + t.TempDir()}, runVersion); ignores {
		t.Error("no node on the PATH, and yet it ignores")
	}
	peers := filepath.Join("..", "..", "test", "peers", "node_modules", "node", "bin", "node")
	if _, err := os.Stat(peers); err == nil {
		abs, _ := filepath.Abs(peers)
		if v, ignores := NodeIgnoresProxy(abs, nil, runVersion); ignores {
			t.Errorf("the test peers' Node %s ignores the proxy", v)
		}
	}
	if real, err := exec.LookPath("node"); err == nil {
		v, ignores := NodeIgnoresProxy("node", []string{"PATH=" + filepath.Dir(real)}, runVersion)
		if v == "" || ignores != !nodeHonoursProxy(v) {
			t.Errorf("this machine's node: %q %v", v, ignores)
		}
	}
}
