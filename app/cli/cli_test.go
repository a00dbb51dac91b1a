package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

// home is a temporary home folder with mcptray's paths inside it.
type home struct {
	t     *testing.T
	dir   string
	paths config.Paths
	env   map[string]string
	// store keeps sign-ins in memory: no test writes to a keychain under
	// the product's name.
	store *secrettest.Store
	// launcher is given to the commands as mcptray's sandbox launcher.
	launcher string
	// probe is given to the commands as mcptray's hostile probe (mcptray
	// sandbox check).
	probe []string
	// http downloads bundles, trusting the test's server.
	http *http.Client
	// baseEnv is what the servers of a command's own mcptray start from:
	// the test's environment with HOME here, not the login shell's, which
	// runs the profile of the person running the tests, taking up to its
	// 5 s bound.
	baseEnv []string
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	// The control folder of the mcptray a test runs goes in a runtime
	// folder of the test's, removed with it, not in the system's
	// temporary folder, where the instance lock would stay behind. Not in
	// dir: a socket's path has at most 107 bytes, and dir's holds the
	// test's name.
	run, err := os.MkdirTemp("", "run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	lookup := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "XDG_RUNTIME_DIR":
			return run, true
		}
		return "", false
	}
	paths, err := config.NewPaths("linux", lookup)
	if err != nil {
		t.Fatal(err)
	}
	paths.Enterprise = filepath.Join(dir, "etc", "managed.json")
	return &home{t: t, dir: dir, paths: paths, env: map[string]string{"HOME": dir}, store: secrettest.New(),
		baseEnv: append(os.Environ(), "HOME="+dir)}
}

// run runs one command and returns its exit code, stdout and stderr.
func (h *home) run(args ...string) (int, string, string) {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Env{
		Stdout: &out, Stderr: &errOut, Paths: &h.paths, Store: h.store, Launcher: h.launcher, HTTP: h.http, Probe: h.probe, BaseEnv: h.baseEnv,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Now:    func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) },
	})
	return code, out.String(), errOut.String()
}

// must runs a command that has to succeed.
func (h *home) must(args ...string) string {
	h.t.Helper()
	code, out, errOut := h.run(args...)
	if code != 0 {
		h.t.Fatalf("mcptray %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// fails runs a command that must fail with exit code and say want on
// stderr.
func (h *home) fails(code int, want string, args ...string) {
	h.t.Helper()
	got, _, errOut := h.run(args...)
	if got != code || !strings.Contains(errOut, want) {
		h.t.Errorf("mcptray %q: exit %d, stderr %q; want exit %d and %q", args, got, errOut, code, want)
	}
}

func (h *home) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *home) list() listing {
	h.t.Helper()
	var l listing
	if err := json.Unmarshal([]byte(h.must("list", "--json")), &l); err != nil {
		h.t.Fatal(err)
	}
	return l
}

func (l listing) server(name string) (service.Server, bool) {
	for _, s := range l.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return service.Server{}, false
}

func TestEmptyHome(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if out := h.must("list"); !strings.Contains(out, "No MCP servers found") {
		t.Errorf("list in an empty home: %q", out)
	}
	l := h.list()
	if l.Servers == nil || l.Problems == nil || l.Folders == nil || len(l.Servers) != 0 {
		t.Errorf("empty listing must have empty lists, not null: %+v", l)
	}
	if out := h.must("folders", "list"); !strings.Contains(out, "No project folders") {
		t.Errorf("folders list: %q", out)
	}
}

func TestAddListRemove(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("add", "files", "--env", "API_KEY=sekrit", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp/my files")
	h.must("add", "web", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer tok")
	h.must("add", "old", "--url", "https://example.com/sse", "--transport", "sse")

	out := h.must("list")
	for _, want := range []string{"files", "npx -y @modelcontextprotocol/server-filesystem '/tmp/my files'", "http https://example.com/mcp", "sse https://example.com/sse", "~/.config/mcptray/config.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"sekrit", "Bearer tok"} {
		if strings.Contains(out, secret) || strings.Contains(h.must("list", "--json"), secret) {
			t.Errorf("list shows the secret %q", secret)
		}
	}
	l := h.list()
	s, ok := l.server("files")
	if !ok || s.Scope != config.User || s.Approval != config.NotNeeded || !s.Runnable ||
		s.Signature != `stdio:["npx","-y","@modelcontextprotocol/server-filesystem","/tmp/my files"]` ||
		len(s.EnvNames) != 1 || s.EnvNames[0] != "API_KEY" {
		t.Errorf("files = %+v", s)
	}
	// No mcptray runs here: the listing says so, and nothing is connecting.
	if l.Running || s.State != service.Pending {
		t.Errorf("with no mcptray running: running %v, files %v; want false, pending", l.Running, s.State)
	}
	if s, _ := l.server("web"); s.Transport != "http" || s.HeaderNames[0] != "Authorization" {
		t.Errorf("web = %+v", s)
	}

	h.fails(1, "already have a server called", "add", "files", "--", "other")
	h.must("remove", "files")
	if _, ok := h.list().server("files"); ok {
		t.Error("files is still listed after remove")
	}
	h.fails(1, `no server called "files"`, "remove", "files")
	// The file was rewritten atomically with one backup.
	if _, err := os.Stat(h.paths.UserFile() + ".bak"); err != nil {
		t.Errorf("no backup kept: %v", err)
	}
}

func TestAddRefusesBadInput(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add"}, 2, "name the server first"},
		{[]string{"add", "x"}, 2, "say what to run"},
		{[]string{"add", "x", "--url", "ftp://example.com"}, 1, "is not a web address: use an https://, http://, wss:// or ws:// URL"},
		{[]string{"add", "x", "--url", "https://example.com", "--transport", "carrier-pigeon"}, 1, "unknown type"},
		{[]string{"add", "x", "--url", "https://a", "--", "cmd"}, 2, "not both"},
		{[]string{"add", "x", "--env", "NOEQUALS", "--", "cmd"}, 2, "should look like NAME=value"},
		{[]string{"add", "x", "--header", "A=b", "--", "cmd"}, 2, "for remote servers"},
		{[]string{"add", "x\u202e", "--", "cmd"}, 1, "invisible or control characters"},
		{[]string{"add", "x", "--", "cmd", "${NOT_SET}"}, 1, "NOT_SET is not set"},
		{[]string{"add", "x", "--url", "https://example.com/" + strings.Repeat("a", 100_000)}, 1, "the URL is 100020 characters long; a server's address has at most 2048"},
		{[]string{"add", "x", "--url", "https://example.com:99999/mcp"}, 1, "port 99999 is not a port (use 1 to 65535)"},
		{[]string{"add", "x", "--url", "https://me:hunter2@example.com/mcp"}, 1, "the URL holds a user name or password"},
	} {
		h.fails(tc.code, tc.want, tc.args...)
	}
	// A refused URL is not echoed back whole, and a password in one is
	// never printed.
	code, out, errOut := h.run("add", "x", "--url", "https://me:hunter2@example.com/mcp")
	if code != 1 || strings.Contains(out+errOut, "hunter2") {
		t.Errorf("add with a password in the URL: exit %d, printed %q %q", code, out, errOut)
	}
	if _, _, errOut := h.run("add", "x", "--url", "https://example.com/"+strings.Repeat("a", 100_000)); len(errOut) > 300 {
		t.Errorf("a refused long URL is echoed back: %d bytes", len(errOut))
	}
	if _, err := os.Stat(h.paths.UserFile()); !os.IsNotExist(err) {
		t.Errorf("a refused add wrote the config file (err %v)", err)
	}
}

func TestApproveDenyFollowContent(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.write("proj/.mcp.json", `{"mcpServers": {"notes": {"command": "node", "args": ["notes.js"], "env": {"TOKEN": "abc123"}}}}`)
	out := h.must("folders", "add", proj)
	if !strings.Contains(out, "1 server(s) there wait for your approval") {
		t.Errorf("folders add: %q", out)
	}
	if s, _ := h.list().server("notes"); s.Approval != config.Undecided || s.Runnable || s.Cwd != proj {
		t.Fatalf("a new local server must await approval and start in its folder: %+v", s)
	}
	if out := h.must("list"); !strings.Contains(out, "awaiting approval") || !strings.Contains(out, "mcptray approve NAME") {
		t.Errorf("list does not tell the person what to do:\n%s", out)
	}

	out = h.must("approve", "notes")
	for _, want := range []string{"Approved notes", "runs:        node notes.js", "environment: TOKEN (values hidden)", "in folder:   ~/proj"} {
		if !strings.Contains(out, want) {
			t.Errorf("approve output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "abc123") {
		t.Error("approve printed an env value")
	}
	if s, _ := h.list().server("notes"); s.Approval != config.Approved || !s.Runnable {
		t.Fatalf("after approve: %+v", s)
	}

	// Changing what it runs asks again.
	h.write("proj/.mcp.json", `{"mcpServers": {"notes": {"command": "node", "args": ["notes.js", "--evil"], "env": {"TOKEN": "abc123"}}}}`)
	if s, _ := h.list().server("notes"); s.Approval != config.Undecided {
		t.Fatalf("after a change of args: %+v", s)
	}
	h.must("deny", "notes")
	if s, _ := h.list().server("notes"); s.Approval != config.Denied || s.Runnable {
		t.Fatalf("after deny: %+v", s)
	}
	// Going back to the approved content is approved again: decisions are
	// kept per content.
	h.write("proj/.mcp.json", `{"mcpServers": {"notes": {"command": "node", "args": ["notes.js"], "env": {"TOKEN": "abc123"}}}}`)
	if s, _ := h.list().server("notes"); s.Approval != config.Approved {
		t.Fatalf("back to approved content: %+v", s)
	}

	h.fails(1, "edit that file, or deny it", "remove", "notes")
	h.must("add", "mine", "--", "uvx", "thing")
	h.fails(1, "needs no approval", "approve", "mine")
	h.fails(1, "no server called", "approve", "ghost")
	h.must("folders", "remove", proj)
	if _, ok := h.list().server("notes"); ok {
		t.Error("servers of a removed folder are still listed")
	}
}

func TestListShowsSuppressedAndProblems(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write(".config/Claude/claude_desktop_config.json", `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "server-filesystem"]},
		"broken": {"command": "x", "args": "not-a-list"}
	}}`)
	h.write(".cursor/mcp.json", `{"mcpServers": {`)
	h.must("add", "files", "--", "npx", "-y", "server-filesystem")

	out := h.must("list")
	for _, want := range []string{
		"Not running:",
		`fs (imported, ~/.config/Claude/claude_desktop_config.json): same server as "files" from the user scope`,
		`~/.config/Claude/claude_desktop_config.json:3:38: server "broken": "args" must be a list of strings`,
		"~/.cursor/mcp.json:1:17: is not valid JSON",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	l := h.list()
	fs, ok := l.server("fs")
	if !ok || fs.SuppressedBy != "files" || fs.Runnable {
		t.Errorf("fs = %+v", fs)
	}
	if len(l.Problems) != 2 {
		t.Errorf("problems = %+v", l.Problems)
	}
	h.fails(1, "does not run: same server", "approve", "fs")
	h.fails(1, "has a problem in its config", "approve", "broken")
}

func TestFolders(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "work")
	file := h.write("work/readme.txt", "hi")
	h.must("folders", "add", dir)
	if out := h.must("folders", "list"); strings.TrimSpace(out) != dir {
		t.Errorf("folders list = %q", out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"folders", "add", dir}, 1, "is already one of your project folders"},
		{[]string{"folders", "add", file}, 1, "is a file"},
		{[]string{"folders", "add", filepath.Join(h.dir, "nope")}, 1, "there is no folder"},
		{[]string{"folders", "remove", filepath.Join(h.dir, "nope")}, 1, "is not one of your project folders; mcptray folders list shows them\n"},
		{[]string{"folders"}, 2, "say add, remove or list"},
		{[]string{"folders", "move", dir}, 2, "no folders command"},
	} {
		h.fails(tc.code, tc.want, tc.args...)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if out := h.must("help"); !strings.Contains(out, "mcptray add NAME --url URL") {
		t.Errorf("help: %q", out)
	}
	h.fails(2, `no command "frobnicate"`, "frobnicate")
	h.fails(2, "usage: mcptray list", "list", "--yaml")
}

func TestBrokenUserFileIsNeverOverwritten(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const broken = "{\"mcpServers\": {\"a\": {\"command\": \"x\"}},, // oops\n"
	h.write(".config/mcptray/config.json", broken)
	for _, args := range [][]string{{"add", "b", "--", "y"}, {"remove", "a"}, {"folders", "add", h.dir}} {
		h.fails(1, "fix it or remove it first", args...)
	}
	got, err := os.ReadFile(h.paths.UserFile())
	if err != nil || string(got) != broken {
		t.Errorf("the broken file changed: %q, %v", got, err)
	}
	if out := h.must("list"); !strings.Contains(out, "config.json:1:") {
		t.Errorf("list does not point at the broken file:\n%s", out)
	}
}

// TestHiddenCharactersInNames: a project server whose name hides a
// zero-width character cannot take the real server's name: list shows it
// marked, and approving the clean name approves the real one only.
func TestHiddenCharactersInNames(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write("proj/.mcp.json", "{\"mcpServers\": {\"goo\u200bgle\": {\"command\": \"spoof\"}, \"google\": {\"command\": \"real\"}}}")
	h.must("folders", "add", filepath.Join(h.dir, "proj"))
	out := h.must("list")
	if !strings.Contains(out, "goo?gle (its name hides characters)") {
		t.Errorf("list does not mark the spoof:\n%s", out)
	}
	if strings.Contains(out, "\u200b") {
		t.Errorf("list prints the hidden character raw:\n%s", out)
	}
	if out := h.must("approve", "google"); !strings.Contains(out, "runs:        real") {
		t.Errorf("approving google approved something else:\n%s", out)
	}
	var spoof service.Server
	for _, s := range h.list().Servers {
		if s.NameHidden {
			spoof = s
		}
	}
	if spoof.Name != "goo?gle" || spoof.Approval != "pending" {
		t.Errorf("the spoof is %+v; want goo?gle, still pending", spoof)
	}
}

// TestAddWebSocketURL: a ws:// or wss:// URL needs no --transport flag.
func TestAddWebSocketURL(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("add", "sock", "--url", "wss://example.com/mcp")
	for _, s := range h.list().Servers {
		if s.Name == "sock" && s.Transport != "ws" {
			t.Errorf("a wss:// URL was added as %q, want ws", s.Transport)
		}
	}
}

// TestConnectDisconnect: connect writes the gateway into an app's config,
// keeping the rest, and mcptray does not then list its own gateway as a
// server; disconnect takes it out again.
func TestConnectDisconnect(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	file := h.write(".cursor/mcp.json", `{"mcpServers": {"files": {"command": "files-mcp"}}}`)
	out := h.must("connect", "cursor")
	if !strings.Contains(out, "Connected Cursor") || !strings.Contains(out, "~/.cursor/mcp.json") {
		t.Errorf("connect printed %q", out)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"stdio"`) || !strings.Contains(string(b), `"files-mcp"`) {
		t.Errorf("after connect:\n%s", b)
	}
	l := h.list()
	if _, ok := l.server("files"); !ok {
		t.Errorf("Cursor's own server is no longer listed: %+v", l.Servers)
	}
	if _, ok := l.server("mcptray"); ok {
		t.Errorf("mcptray lists its own gateway as a server: %+v", l.Servers)
	}
	if out := h.must("disconnect", "cursor"); !strings.Contains(out, "Disconnected Cursor") {
		t.Errorf("disconnect printed %q", out)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "stdio") {
		t.Errorf("after disconnect:\n%s", b)
	}
	if out := h.must("disconnect", "cursor"); !strings.Contains(out, "was not connected") {
		t.Errorf("a second disconnect printed %q", out)
	}
	h.fails(2, "does not know the app", "connect", "notepad")
}

// TestPermissionsAndHide: the gateway's rules are kept in mcptray's config
// and read back as the gateway reads them.
func TestPermissionsAndHide(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("permissions", "allow", "mcp__notes__write")
	h.must("permissions", "block", "mcp__notes__delete")
	h.must("hide", "weather")
	h.must("hide", "weather")
	out := h.must("permissions")
	for _, want := range []string{"mcp__notes__write: allow", "mcp__notes__delete: block", "weather: hidden"} {
		if !strings.Contains(out, want) {
			t.Errorf("permissions printed %q, want %q", out, want)
		}
	}
	set := config.NewLoader(h.paths).Load()
	if set.Gateway.Permissions["mcp__notes__write"] != config.Allow || !set.Gateway.Hides("weather", "mcp__weather__now") || len(set.Gateway.Hidden) != 1 {
		t.Errorf("the loader reads %+v", set.Gateway)
	}
	h.must("permissions", "reset", "mcp__notes__write")
	h.must("unhide", "weather")
	set = config.NewLoader(h.paths).Load()
	if _, ok := set.Gateway.Permissions["mcp__notes__write"]; ok || len(set.Gateway.Hidden) != 0 {
		t.Errorf("after reset and unhide the loader reads %+v", set.Gateway)
	}
	h.fails(2, "is not allow, ask, block or reset", "permissions", "maybe", "mcp__notes__write")
	h.fails(2, "mcp__SERVER__TOOL", "permissions", "allow", "write")
}

// TestDemoServer: "mcptray demo-server", which no help lists, is the demo
// project's MCP server on stdin and stdout.
func TestDemoServer(t *testing.T) {
	var out, errOut bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`)
	code := Run(context.Background(), []string{"demo-server"}, Env{Stdin: in, Stdout: &out, Stderr: &errOut})
	if code != 0 || !strings.Contains(out.String(), `"mcptray-demo"`) || !strings.Contains(out.String(), `"pick_colour"`) {
		t.Errorf("mcptray demo-server: exit %d\nstdout: %s\nstderr: %s", code, out.String(), errOut.String())
	}
	var help bytes.Buffer
	Run(context.Background(), []string{"help"}, Env{Stdout: &help, Stderr: &help})
	if strings.Contains(help.String(), "demo-server") {
		t.Errorf("help lists the hidden demo-server:\n%s", help.String())
	}
}
