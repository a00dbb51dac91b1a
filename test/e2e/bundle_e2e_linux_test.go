package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
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
	file := bundletest.Pack(t, bundletest.Testdata("node"), nil)

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
