package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// TestBundleThroughGateway: a server packed as an MCP Bundle by the
// official bundle CLI, installed with mcptray install FILE.mcpb into a
// running mcptray (through its control socket), is offered to an app on
// the gateway, reads the folder it was given and is refused one beside
// it.
func TestBundleThroughGateway(t *testing.T) {
	t.Parallel()
	h := newStdioHome(t)
	home := h.paths.Home
	for rel, text := range map[string]string{"notes/todo.txt": "milk", "Documents/plan.txt": "the plan"} {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	file := packNodeBundle(t)

	app := startStdio(t, h.mcptray, h.env)
	init := app.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"app","version":"1"}}`)
	if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
		t.Fatalf("initialize answered %s\n%s", init, h.serveLog())
	}
	app.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	cl, err := control.Dial(context.Background(), h.paths)
	if err != nil {
		t.Fatalf("reaching the mcptray that stdio started: %v\n%s", err, h.serveLog())
	}
	h.servePID = cl.PID
	cl.Close()

	h.do("install", file, "--set", "folder=~/notes")

	if got := toolText(t, app.waitCall(t, "mcp__bundle-node__echo", h.serveLog)); got != "undefined" {
		t.Errorf("echo without text said %q", got)
	}
	call := func(id int, path string) string {
		res := app.request(t, id, "tools/call", `{"name":"mcp__bundle-node__read_file","arguments":{"path":`+strconv.Quote(path)+`}}`)
		return string(res)
	}
	if got := call(200, filepath.Join(home, "notes", "todo.txt")); !strings.Contains(got, `"text":"milk"`) {
		t.Errorf("reading in its folder: %s\n%s", got, h.serveLog())
	}
	if got := call(201, filepath.Join(home, "Documents", "plan.txt")); !strings.Contains(got, "EACCES") {
		t.Errorf("reading beside its folder: %s; want it refused", got)
	}

	if err := syscall.Kill(h.servePID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
}

// packNodeBundle packs core/bundle's test node server with the official
// bundle CLI that make deps installs into test/peers.
func packNodeBundle(t *testing.T) string {
	t.Helper()
	peers, err := filepath.Abs(filepath.Join("..", "peers", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(peers, "mcpb")
	if _, err := os.Stat(bin); err != nil {
		if _, npmErr := exec.LookPath("npm"); npmErr != nil {
			t.Skip("npm is not installed, so the official bundle CLI (mcpb) cannot be had; install Node.js with npm and run make deps")
		}
		t.Fatalf("the official bundle CLI is not in test/peers (%v); run make deps", err)
	}
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "core", "bundle", "testdata", "node"))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "node.mcpb")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "pack", src, out)
	cmd.Env = append(os.Environ(), "PATH="+peers+string(os.PathListSeparator)+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpb pack: %v\n%s", err, b)
	}
	return out
}
