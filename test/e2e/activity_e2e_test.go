//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
)

// TestActivityRecord runs mcptray as a person and an app do: a server with
// a key in its environment, an app on mcptray stdio that calls its tools
// (one fails, one is blocked, one gets the key as an argument), then
// mcptray quit. mcptray activity then shows the calls with the app, the
// server, the tool, the outcome and the decision, verify finds the record
// intact, and the key is in none of the record's files although Keep
// arguments is on.
func TestActivityRecord(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-planted-0b3d5f7a9c"
	h := newStdioHome(t)
	h.do("add", "a", "--env", "API_KEY="+key, "--", h.testServer, "-name", "a")
	h.do("permissions", "block", "mcp__a__pid")
	// The person turns Keep arguments on in config.json.
	b, err := os.ReadFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["activity"] = map[string]any{"keepArguments": true}
	if b, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.paths.UserFile(), b, 0o600); err != nil {
		t.Fatal(err)
	}

	app := startStdio(t, h.mcptray, h.env)
	init := app.request(t, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}`)
	if !strings.Contains(string(init), `"serverInfo":{"name":"mcptray"`) {
		t.Fatalf("initialize answered %s\n%s", init, h.serveLog())
	}
	app.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	app.waitCall(t, "mcp__a__add", h.serveLog) // no numbers: the tool fails
	if got := toolText(t, app.request(t, 2, "tools/call", `{"name":"mcp__a__echo","arguments":{"text":"the key is `+key+`"}}`)); got != "the key is "+key {
		t.Errorf("echo answered %q", got)
	}
	app.request(t, 3, "tools/call", `{"name":"mcp__a__pid","arguments":{}}`)
	app.stdin.Close()
	if err := app.wait(); err != nil {
		t.Errorf("mcptray stdio: %v", err)
	}
	h.do("quit") // returns once mcptray is gone, its record closed

	out := h.output("activity", "--json")
	type row struct {
		app, face, server, tool string
		outcome                 activity.Outcome
		decision                activity.Decision
	}
	var got []row
	var args []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e activity.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("mcptray activity --json: %q: %v", line, err)
		}
		if e.Kind == activity.KindCall {
			got = append(got, row{e.App, e.Face, e.Server, e.Tool, e.Outcome, e.Decision})
			args = append(args, e.Arguments)
		}
	}
	want := []row{
		{"Claude Code", "stdio", "a", "add", activity.ToolFailed, activity.Allowed},
		{"Claude Code", "stdio", "a", "echo", activity.Answered, activity.Allowed},
		{"Claude Code", "stdio", "a", "pid", activity.Refused, activity.Blocked},
	}
	if len(got) != len(want) {
		t.Fatalf("mcptray activity shows %+v, want %+v\n%s\n%s", got, want, out, h.serveLog())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if args[1] != `{"text":"the key is [masked]"}` {
		t.Errorf("echo's arguments kept as %s", args[1])
	}
	// Sealed with the keychain the tests give mcptray, or, without one,
	// chained but not sealed; never a word of anything changed. Its
	// four rows, and the sandbox check's row when the check that a first
	// start runs beside them has ended by then.
	if out := h.output("activity", "verify"); !strings.Contains(out, "Proven: rows 1–4,") && !strings.Contains(out, "Proven: rows 1–5,") && !strings.Contains(out, "chained but not sealed") {
		t.Errorf("mcptray activity verify: %s", out)
	}
	files, _ := filepath.Glob(h.paths.ActivityFile() + "*")
	if len(files) == 0 {
		t.Fatal("no activity record was written")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the server's key", filepath.Base(f))
		}
	}
}

// output runs mcptray with args in the home and returns what it printed.
func (h *stdioHome) output(args ...string) string {
	h.t.Helper()
	cmd := exec.Command(h.mcptray, args...)
	cmd.Env = h.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		h.t.Fatalf("mcptray %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}
