package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestMoveOver: connecting VS Code while moving the servers mcptray runs
// from its own config takes exactly those out of VS Code's file, in one
// write with a backup, and keeps its other servers, keys and comments.
func TestMoveOver(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	h.userFile(t, `{"files": {"command": "files-mcp", "args": ["~"]}, "web": {"url": "https://example.com/mcp"}}`)
	vs, _ := h.paths.AppSource("vs-code")
	const vscode = `// my VS Code servers
{
  "servers": {
    // the same as mcptray's
    "my-files": {"type": "stdio", "command": "files-mcp", "args": ["~"]},
    // only here
    "notes": {"type": "stdio", "command": "notes-mcp",},
    "web/2": {"type": "http", "url": "https://EXAMPLE.com/mcp/"},
  },
  "inputs": [],
}
`
	writeFile(t, vs.File, vscode)
	set := h.loader(nil).Load()
	var movable []string
	for _, e := range Movable(set, vs) {
		movable = append(movable, e.ConfigName)
	}
	slices.Sort(movable)
	if !slices.Equal(movable, []string{"my-files", "web/2"}) {
		t.Fatalf("Movable = %v, want my-files and web/2 (mcptray runs both from its own config)", movable)
	}
	if cd, _ := h.paths.AppSource("claude-desktop"); len(Movable(set, cd)) != 0 {
		t.Error("an app with no config has movable servers")
	}

	if err := ConnectAppMoving(vs, "/opt/mcptray/bin/mcptray", movable); err != nil {
		t.Fatal(err)
	}
	after := readFile(t, vs.File)
	if backup := readFile(t, vs.File+".bak"); backup != vscode {
		t.Errorf("the backup is not the file as it was:\n%s", backup)
	}
	for _, keep := range []string{"// my VS Code servers", "// only here", `"notes-mcp"`, `"inputs"`} {
		if !strings.Contains(after, keep) {
			t.Errorf("VS Code's file lost %q:\n%s", keep, after)
		}
	}
	for _, gone := range []string{"my-files", "files-mcp", "web/2", "EXAMPLE.com"} {
		if strings.Contains(after, gone) {
			t.Errorf("VS Code's file still has %q:\n%s", gone, after)
		}
	}
	doc, p := readSource(vs)
	if p != nil {
		t.Fatalf("VS Code's file after moving: %v\n%s", p.Message, after)
	}
	servers, _ := doc.servers(Vars{})
	if got := serverNames(servers); !slices.Equal(got, []string{"notes", GatewayEntry}) {
		t.Errorf("VS Code's servers after moving: %v\n%s", got, after)
	}
	// mcptray still runs both, from its own config, and now nothing of
	// VS Code's gives way.
	set = h.loader(nil).Load()
	if len(Movable(set, vs)) != 0 || entryNamed(t, set, "files").Scope != User {
		t.Errorf("after moving: servers %v, suppressed %v", names(set.Servers), names(set.Suppressed))
	}

	// A name that is not there (the file changed meanwhile) changes
	// nothing.
	before := readFile(t, vs.File)
	if err := ConnectAppMoving(vs, "/opt/mcptray/bin/mcptray", []string{"gone"}); err == nil {
		t.Error("moving a server that is not there worked")
	}
	if readFile(t, vs.File) != before {
		t.Error("a failed move changed the file")
	}
}

func TestAppFoundAndConnected(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	cur, _ := h.paths.AppSource("cursor")
	cc, _ := h.paths.AppSource("claude-code")
	if AppFound(cur, h.paths.Home) || AppFound(cc, h.paths.Home) {
		t.Error("apps found in an empty home")
	}
	if err := os.MkdirAll(h.paths.Home+"/.cursor", 0o700); err != nil {
		t.Fatal(err)
	}
	if !AppFound(cur, h.paths.Home) {
		t.Error("Cursor's folder does not make it found")
	}
	if ok, err := AppConnected(cur); ok || err != nil {
		t.Errorf("AppConnected with no file = %v, %v", ok, err)
	}
	writeFile(t, cc.File, `{"mcpServers": {"mcptray": {"command": "mcptray", "args": ["stdio"]}}}`)
	if ok, err := AppConnected(cc); !ok || err != nil || !AppFound(cc, h.paths.Home) {
		t.Errorf("Claude Code with the gateway: connected %v, %v", ok, err)
	}
}
