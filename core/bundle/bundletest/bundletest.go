// Package bundletest builds MCP Bundles for tests with the official bundle
// CLI (@anthropic-ai/mcpb, which make deps installs into test/peers), from
// core/bundle's test servers or a folder of the test's own. A test skips
// only where npm is not there to install the CLI.
package bundletest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repo is the repository's root, found from this file's place in it.
func repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Testdata is the folder of core/bundle's test bundle name ("node",
// "python"…).
func Testdata(name string) string {
	return filepath.Join(repo(), "core", "bundle", "testdata", name)
}

// Run runs the official bundle CLI with args in dir, its own Node first on
// PATH, and fails the test when it fails.
func Run(t testing.TB, dir string, args ...string) {
	t.Helper()
	peers := filepath.Join(repo(), "test", "peers", "node_modules", ".bin")
	bin := filepath.Join(peers, "mcpb")
	if _, err := os.Stat(bin); err != nil {
		if _, npmErr := exec.LookPath("npm"); npmErr != nil {
			t.Skip("npm is not installed, so the official bundle CLI (mcpb) cannot be had; install Node.js with npm and run make deps")
		}
		t.Fatalf("the official bundle CLI is not in test/peers (%v); run make deps", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+peers+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Pack copies the folder src into a fresh one, changes its manifest with
// edit (when not nil), packs it, and returns the bundle's path, named
// after src.
func Pack(t testing.TB, src string, edit func(manifest map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		path := filepath.Join(dir, "manifest.json")
		var m map[string]any
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			t.Fatal(err)
		}
		edit(m)
		if data, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), filepath.Base(src)+".mcpb")
	Run(t, dir, "pack", dir, out)
	return out
}

// SignSelf signs the bundle at file with a certificate of the CLI's own
// making.
func SignSelf(t testing.TB, file string) {
	t.Helper()
	Run(t, filepath.Dir(file), "sign", "--self-signed", file)
}
