//go:build linux

package e2e

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// firstListWait is the gateway's bound on an app's first list
// (core/gateway's firstListWait).
const firstListWait = 8 * time.Second

// TestGatewayColdStart is an app that starts mcptray stdio when no mcptray
// runs, as after login, and lists tools once: its first tools/list holds
// every server's tools, the one slow to start included. Then, with a
// server that never finishes starting added, the first list of the next
// cold start waits for it no longer than the gateway's bound.
func TestGatewayColdStart(t *testing.T) {
	t.Parallel()
	h := newStdioHome(t)
	mcptray, testServer, env, paths, serveLog, mcptrayDo := h.mcptray, h.testServer, h.env, h.paths, h.serveLog, h.do
	mcptrayDo("add", "a", "--", testServer, "-name", "a")
	mcptrayDo("add", "b", "--", testServer, "-name", "b")
	mcptrayDo("add", "slow", "--", testServer, "-name", "slow", "-init-delay", "2s")

	// firstList starts an app on a cold mcptray and returns its first
	// tools/list, and how long the list took.
	firstList := func() (string, time.Duration) {
		t.Helper()
		if _, err := control.Dial(context.Background(), paths); err == nil {
			t.Fatal("an mcptray already runs: the start would not be cold")
		}
		app := startStdio(t, mcptray, env)
		init := app.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cold-app","version":"1"}}`)
		if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
			t.Fatalf("initialize answered %s\n%s", init, serveLog())
		}
		app.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		start := time.Now()
		list := app.request(t, 2, "tools/list", `{}`)
		took := time.Since(start)
		cl, err := control.Dial(context.Background(), paths)
		if err != nil {
			t.Fatalf("reaching the mcptray that stdio started: %v\n%s", err, serveLog())
		}
		h.servePID = cl.PID
		cl.Close()
		return string(list), took
	}
	// quit stops the mcptray the app started, and its servers.
	quit := func() {
		t.Helper()
		servers := running(testServer)
		if err := syscall.Kill(h.servePID, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitNone(t, testServer, servers)
		h.servePID = 0
	}

	list, _ := firstList()
	for _, tool := range []string{"mcp__a__echo", "mcp__b__echo", "mcp__slow__echo"} {
		if !strings.Contains(list, `"name":"`+tool+`"`) {
			t.Errorf("the first tools/list of an app that started mcptray lacks %s: %s\n%s", tool, list, serveLog())
		}
	}
	quit()

	// A server that never answers its handshake holds the first list
	// only until the bound: the others' tools are there, its are not.
	mcptrayDo("add", "hang", "--", testServer, "-name", "hang", "-hang-init")
	list, took := firstList()
	if took > firstListWait+2*time.Second {
		t.Errorf("with a server that never starts, the first tools/list took %s, want at most %s and a little", took, firstListWait)
	}
	for _, tool := range []string{"mcp__a__echo", "mcp__b__echo", "mcp__slow__echo"} {
		if !strings.Contains(list, `"name":"`+tool+`"`) {
			t.Errorf("the first tools/list with a server that never starts lacks %s: %s\n%s", tool, list, serveLog())
		}
	}
	if bytes.Contains([]byte(list), []byte("mcp__hang__")) {
		t.Errorf("the first tools/list holds the tools of a server that never started: %s", list)
	}
	quit()
}
