package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestConnectMove: connect says when the app's config has servers mcptray
// runs from its own config, and --move takes exactly those out of it.
func TestConnectMove(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write(".config/mcptray/config.json", `{"mcpServers": {"files": {"command": "files-mcp", "args": ["~"]}}}`)
	const cursor = `{"mcpServers": {"my-files": {"command": "files-mcp", "args": ["~"]}, "notes": {"command": "notes-mcp"}}}`
	file := h.write(".cursor/mcp.json", cursor)

	out := h.must("connect", "cursor")
	if !strings.Contains(out, "Cursor's config also has servers mcptray runs (my-files)") || !strings.Contains(out, "mcptray connect cursor --move") {
		t.Errorf("connect without --move printed %q", out)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "my-files") {
		t.Errorf("connect without --move took servers out:\n%s", b)
	}

	out = h.must("connect", "cursor", "--move")
	if !strings.Contains(out, "Took my-files out of Cursor's config") {
		t.Errorf("connect --move printed %q", out)
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), "my-files") || !strings.Contains(string(b), "notes-mcp") || !strings.Contains(string(b), `"stdio"`) {
		t.Errorf("after connect --move:\n%s", b)
	}
	if _, ok := h.list().server("files"); !ok {
		t.Error("mcptray no longer lists the moved server")
	}
}

// TestPrintApps: mcptray gateway says how each app found here stands, what
// to do, and leaves out apps that are not here.
func TestPrintApps(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	printApps(&b, []service.App{
		{Key: "cursor", Name: "Cursor", Found: true, Connected: true, State: service.AppInUse, Status: "in use — sees 45 tools",
			ToolWarning: "Cursor sees 45 tools, more than the 40 it can use."},
		{Key: "vscode", Name: "VS Code", Found: true, State: service.AppNotConnected, Status: "not connected"},
		{Key: "claude-desktop", Name: "Claude Desktop", Status: "not connected"},
	})
	want := "Cursor: in use — sees 45 tools\n  Cursor sees 45 tools, more than the 40 it can use.\n" +
		"VS Code: not connected\n  mcptray connect vscode connects it.\n"
	if b.String() != want {
		t.Errorf("printApps:\n%s\nwant:\n%s", b.String(), want)
	}
}
