package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// TestSetsThroughStdioApps: two apps at once through mcptray stdio --app,
// with different sets, each list only their set and are refused, in
// words, a tool outside it; the one that calls itself the other in its
// clientInfo still gets its own. Switching the tray's set reaches the app
// that follows the tray within a second (list_changed, then a new list).
// The MCP Inspector's CLI, run as an app named by --app, lists its set
// only.
func TestSetsThroughStdioApps(t *testing.T) {
	t.Parallel()
	h := newStdioHome(t)
	h.do("add", "a", "--", h.testServer, "-name", "a")
	h.do("add", "b", "--", h.testServer, "-name", "b")
	h.do("set", "Writing", "--servers", "a")
	h.do("set", "Coding", "--servers", "b")
	h.do("app", "set", "writer", "Writing")
	h.do("app", "set", "coder", "tray")

	start := func(app, clientInfo string) *stdioApp {
		cmd := exec.Command(h.mcptray, "stdio", "--app", app)
		cmd.Env = h.env
		a := startAppCmd(t, cmd)
		init := a.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+clientInfo+`","version":"1"}}`)
		if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
			t.Fatalf("%s: initialize answered %s\n%s", app, init, h.serveLog())
		}
		a.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return a
	}
	writer := start("writer", "coder") // it claims the coder's clientInfo
	writer.waitCall(t, "mcp__a__started", h.serveLog)
	coder := start("coder", "coder")
	coder.waitCall(t, "mcp__b__started", h.serveLog) // everything, as the tray's set is, until it is switched

	if list := writer.request(t, 2, "tools/list", `{}`); !bytes.Contains(list, []byte(`"mcp__a__echo"`)) || bytes.Contains(list, []byte(`"mcp__b__`)) {
		t.Errorf("the writer lists more or less than its set:\n%s", list)
	}
	res := writer.request(t, 3, "tools/call", `{"name":"mcp__b__echo","arguments":{"text":"x"}}`)
	if !bytes.Contains(res, []byte("is not in the Writing set")) {
		t.Errorf("the writer called a tool outside its set: %s", res)
	}

	// The tray's set becomes Coding: the coder, which follows the tray,
	// is told at once.
	cl, err := control.Dial(context.Background(), h.paths)
	if err != nil {
		t.Fatalf("reaching the mcptray that stdio started: %v\n%s", err, h.serveLog())
	}
	h.servePID = cl.PID
	defer cl.Close()
	began := time.Now()
	if _, err := cl.SetTraySet(context.Background(), "Coding"); err != nil {
		t.Fatal(err)
	}
	coder.waitListChanged(t, began.Add(time.Second))
	t.Logf("the switch reached the coder in %s", time.Since(began))
	if list := coder.request(t, 4, "tools/list", `{}`); !bytes.Contains(list, []byte(`"mcp__b__echo"`)) || bytes.Contains(list, []byte(`"mcp__a__`)) {
		t.Errorf("after the switch the coder lists more or less than Coding:\n%s", list)
	}

	t.Run("MCP Inspector CLI", func(t *testing.T) {
		bin, err := filepath.Abs(filepath.Join("..", "peers", "node_modules", ".bin", "mcp-inspector"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("run make deps: %v", err)
			}
			t.Skipf("the MCP Inspector is not installed (make deps installs it): %v", err)
		}
		// The Inspector gives the server only HOME and PATH of its own
		// environment: the runtime folder, as an app's config would, so
		// that its mcptray stdio finds the mcptray the others run.
		run, _ := h.lookup("XDG_RUNTIME_DIR")
		cmd := exec.Command(bin, "--cli", "-e", "XDG_RUNTIME_DIR="+run, h.mcptray, "stdio", "--app", "writer", "--method", "tools/list")
		cmd.Env = h.env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mcp-inspector --cli mcptray stdio --app writer: %v\n%s%s", err, out, stderr.String())
		}
		if !bytes.Contains(out, []byte(`"mcp__a__echo"`)) || bytes.Contains(out, []byte(`"mcp__b__`)) {
			t.Errorf("the Inspector, as the writer, lists more or less than Writing:\n%s", out)
		}
		if serves := h.serves(); len(serves) != 1 || serves[0] != h.servePID {
			t.Errorf("the home's mcptray serve processes are %v, want only %d", serves, h.servePID)
		}
	})
}
