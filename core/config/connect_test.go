package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConnectApp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	paths, err := NewPaths("linux", func(k string) (string, bool) { return home, k == "HOME" })
	if err != nil {
		t.Fatal(err)
	}
	const vscode = `// my VS Code servers
{
  "servers": {
    // the one I use every day
    "notes": {"type": "stdio", "command": "notes-mcp",},
  },
  "inputs": [],
}
`
	const claude = `{"globalShortcut": "Ctrl+Space", "mcpServers": {"files": {"command": "files-mcp", "args": ["~"]}}}`
	write := func(src Source, s string) {
		if err := os.MkdirAll(filepath.Dir(src.File), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src.File, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	vs, _ := paths.AppSource("vscode")
	cd, _ := paths.AppSource("Claude Desktop")
	cur, ok := paths.AppSource("cursor")
	if !ok || vs.Format != VSCode || cd.App != "Claude Desktop" {
		t.Fatalf("AppSource: %+v %+v %+v", vs, cd, cur)
	}
	if _, ok := paths.AppSource("notepad"); ok {
		t.Error("AppSource found an app mcptray does not know")
	}
	write(vs, vscode)
	write(cd, claude)

	const exe = "/opt/mcptray/bin/mcptray"
	for _, src := range []Source{vs, cd, cur} {
		if err := ConnectApp(src, exe); err != nil {
			t.Fatalf("connect %s: %v", src.App, err)
		}
		// What was written reads back, with the gateway as a server of
		// the app's own, and mcptray's loader leaves it out.
		doc, p := readSource(src)
		if p != nil {
			t.Fatalf("%s after connect: %v\n%s", src.App, p.Message, read(src.File))
		}
		servers, problems := doc.servers(Vars{})
		var gw *Server
		for i := range servers {
			if servers[i].Name == GatewayEntry {
				gw = &servers[i]
			}
		}
		if len(problems) > 0 || gw == nil || gw.Command != exe || !IsGateway(gw) {
			t.Fatalf("%s after connect: servers %+v, problems %+v\n%s", src.App, servers, problems, read(src.File))
		}
		// The app is named in what mcptray wrote, so that the gateway
		// knows it by that and not by what it says of itself.
		if want := []string{"stdio", "--app", AppKeyFor(src.App)}; strings.Join(gw.Args, " ") != strings.Join(want, " ") {
			t.Errorf("%s after connect: the gateway's args %q, want %q", src.App, gw.Args, want)
		}
	}
	after := read(vs.File)
	for _, keep := range []string{"// my VS Code servers", "// the one I use every day", `"notes-mcp"`, `"inputs"`} {
		if !strings.Contains(after, keep) {
			t.Errorf("VS Code's file lost %q:\n%s", keep, after)
		}
	}
	if read(vs.File+".bak") != vscode || read(cd.File+".bak") != claude {
		t.Error("the backups are not the files as they were")
	}
	for _, src := range []Source{cd, cur} {
		if !json.Valid([]byte(read(src.File))) {
			t.Errorf("%s's file is no longer plain JSON:\n%s", src.App, read(src.File))
		}
	}
	if !strings.Contains(read(cd.File), `"globalShortcut": "Ctrl+Space"`) || !strings.Contains(read(cd.File), `"files-mcp"`) {
		t.Errorf("Claude Desktop's file lost its settings or servers:\n%s", read(cd.File))
	}

	set := NewLoader(paths).Load()
	for _, e := range set.Servers {
		if IsGateway(&e.Server) {
			t.Errorf("mcptray would run its own gateway as a server: %+v", e.Server)
		}
	}

	for _, src := range []Source{vs, cd} {
		found, err := DisconnectApp(src)
		if err != nil || !found {
			t.Fatalf("disconnect %s: %v, %v", src.App, found, err)
		}
	}
	if got := read(vs.File); strings.Contains(got, "mcptray") || !strings.Contains(got, "// the one I use every day") {
		t.Errorf("VS Code's file after disconnect:\n%s", got)
	}
	if found, err := DisconnectApp(vs); found || err != nil {
		t.Errorf("a second disconnect: %v, %v", found, err)
	}

	// A file that cannot be read as JSON is left alone.
	write(cur, `{"mcpServers": {`)
	if err := ConnectApp(cur, exe); err == nil || read(cur.File) != `{"mcpServers": {` {
		t.Errorf("connect to a broken file: %v\n%s", err, read(cur.File))
	}
}
