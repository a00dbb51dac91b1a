package gateway

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/service"
)

// TestFirstListWaits: on the HTTP face, an app's first tools/list waits
// for a server still starting, and holds its tools.
func TestFirstListWaits(t *testing.T) {
	r := newRig(t, map[string]any{"slow": map[string]any{"command": testServerBin, "args": []string{"-name", "slow", "-init-delay", "3s"}}})
	// The rig waited for a's tools only: slow is still starting.
	if r.gw.MCPServer().GetTool("mcp__slow__echo") != nil {
		t.Skip("the slow server started before the rig was ready: nothing to wait for")
	}
	session := r.initialize(t, http.StatusOK)
	list := sseData(r.post(t, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusOK))
	if !bytes.Contains(list, []byte(`"name":"mcp__slow__echo"`)) {
		t.Errorf("the first tools/list came before the server still starting: %s", list)
	}
}

// TestStarting: which servers hold an app's first list.
func TestStarting(t *testing.T) {
	sv := func(state conn.State, failures int, runnable bool) service.Snapshot {
		return service.Snapshot{Servers: []service.Server{
			{Name: "ok", State: conn.Connected, Runnable: true},
			{Name: "x", State: state, Failures: failures, Runnable: runnable},
		}}
	}
	for _, c := range []struct {
		name string
		snap service.Snapshot
		want bool
	}{
		{"connecting", sv(conn.Pending, 0, true), true},
		{"failed once, retrying", sv(conn.Failed, 1, true), true},
		{"in its first retry", sv(conn.Pending, 1, true), true},
		{"failed twice", sv(conn.Failed, 2, true), false},
		{"in a later retry", sv(conn.Pending, 2, true), false},
		{"waiting for approval", sv(conn.AwaitingApproval, 0, false), false},
		{"waiting for sign-in", sv(conn.NeedsAuth, 0, true), false},
		{"turned off", sv(conn.Pending, 0, false), false},
		{"all connected", sv(conn.Connected, 0, true), false},
	} {
		if got := starting(c.snap); got != c.want {
			t.Errorf("%s: starting = %v, want %v", c.name, got, c.want)
		}
	}
}
