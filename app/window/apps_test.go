package window

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/apps"
)

// withGateway gives the service a keychain holding the gateway's token
// (returned in *token) and a gateway command named as mcptray's.
func withGateway(token *string) realOption {
	return func(r *real, o *service.Options) {
		store := secrettest.New()
		tok := "a-gateway-token-the-service-keeps"
		key := secret.Key{Server: secret.GatewayServer, Kind: secret.GatewayToken}
		if err := store.Set(context.Background(), key, []byte(tok)); err != nil {
			r.t.Fatal(err)
		}
		*token = tok
		o.Store = store
		o.GatewayCommand = filepath.Join(r.dir, "bin", "mcptray")
	}
}

// tap taps w as a person would: on the UI goroutine, one update at a time.
func (r *real) tap(w fyne.Tappable) {
	r.v.do(func() { test.Tap(w) })
}

// openApps opens the Apps view and waits until it shows Cursor.
func (r *real) openApps() *appsView {
	r.t.Helper()
	r.until("the first snapshot", func() bool { return r.v.loaded })
	var shown bool
	r.v.do(func() { shown = r.v.appsButton.Visible() })
	if !shown {
		r.t.Fatal("the window has no Apps button")
	}
	r.tap(r.v.appsButton)
	r.until("the Apps view with Cursor", func() bool { return r.v.apps != nil && r.v.apps.connect["cursor"] != nil })
	return r.v.apps
}

// TestRealAppsConnect: Connect in the Apps view writes the gateway into
// Cursor's config and then says it waits for Cursor; Copy token puts the
// gateway's token on the clipboard.
func TestRealAppsConnect(t *testing.T) {
	var token string
	r := newReal(t, nil, withGateway(&token), func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
	})
	a := r.openApps()
	r.v.do(func() {
		if a.connect["cursor"].Text != "Connect" || a.statusText["cursor"].Text != "Not connected" {
			t.Errorf("Cursor before connecting: button %q, status %q", a.connect["cursor"].Text, a.statusText["cursor"].Text)
		}
		if a.connect["vs-code"] != nil {
			t.Error("VS Code, not on this computer, has a Connect button")
		}
	})
	var connect *widget.Button
	r.v.do(func() { connect = a.connect["cursor"] })
	r.tap(connect)
	r.until("Cursor to wait for its start", func() bool {
		return strings.Contains(r.v.apps.statusText["cursor"].Text, "waiting for Cursor to start it; quit it fully and open it again") &&
			r.v.apps.connect["cursor"].Text == "Disconnect"
	})
	b, err := os.ReadFile(filepath.Join(r.dir, ".cursor", "mcp.json"))
	if err != nil || !strings.Contains(string(b), `"mcptray"`) || !strings.Contains(string(b), `"stdio"`) {
		t.Errorf("Cursor's config after Connect: %s (%v)", b, err)
	}

	var copyToken, copyStdio *widget.Button
	r.v.do(func() { copyToken, copyStdio = r.v.apps.copyToken, r.v.apps.copyStdio })
	if copyToken == nil {
		t.Fatal("no Copy token button")
	}
	r.tap(copyToken)
	r.until("the token on the clipboard", func() bool { return r.v.app.Clipboard().Content() == token })
	r.tap(copyStdio)
	r.v.do(func() {
		if got := r.v.app.Clipboard().Content(); !strings.HasSuffix(got, " stdio") {
			t.Errorf("Copy put %q on the clipboard, want the stdio command", got)
		}
	})
}

// TestRealAppsMove: connecting an app whose config has a server mcptray
// runs from its own config offers, checked, to take it out; confirming
// does.
func TestRealAppsMove(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"files": map[string]any{"command": "files-mcp", "disabled": true}}},
		withGateway(&token),
		withFile(func(p config.Paths) string { return filepath.Join(p.Home, ".cursor", "mcp.json") },
			map[string]any{"mcpServers": map[string]any{
				"my-files": map[string]any{"command": "files-mcp"},
				"notes":    map[string]any{"command": "notes-mcp", "disabled": true},
			}}))
	a := r.openApps()
	var connect *widget.Button
	r.v.do(func() { connect = a.connect["cursor"] })
	r.tap(connect)
	r.v.do(func() {
		if a.moveDialog == nil || a.moveChecks["my-files"] == nil || !a.moveChecks["my-files"].Checked || len(a.moveChecks) != 1 {
			t.Fatalf("the move dialog: %v, checks %v", a.moveDialog, a.moveChecks)
		}
		a.moveAnswer(true)
	})
	r.until("Cursor to be connected", func() bool { return r.v.apps.connect["cursor"].Text == "Disconnect" })
	b, _ := os.ReadFile(filepath.Join(r.dir, ".cursor", "mcp.json"))
	if strings.Contains(string(b), "my-files") || !strings.Contains(string(b), "notes-mcp") {
		t.Errorf("Cursor's config after moving:\n%s", b)
	}
}

// TestRealToolRules: a tool's permission select and Hide check, and the
// server's Hide all, write the gateway's rules into mcptray's config; a
// tool its server says only reads shows Allow until the person chooses.
func TestRealToolRules(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"echo": testServer("echo")}}, withGateway(&token))
	r.until("echo to connect", func() bool { return r.shows("echo", service.Connected) })
	r.v.do(func() { r.v.focus("echo") })
	const tool = "mcp__echo__echo"
	r.until("echo's switches", func() bool { return r.v.rules != nil && r.v.rules.permission[tool] != nil })
	var sel string
	r.v.do(func() { sel = r.v.rules.permission[tool].Selected })
	if sel != "Allow" {
		t.Errorf("echo's permission shows %q, want Allow (its server says it only reads)", sel)
	}
	// The server's claim never lowers the person's choice.
	r.v.do(func() { r.v.rules.permission[tool].SetSelected("Block") })
	rules := func() config.GatewayRules {
		u, err := config.ReadUserFile(r.paths.UserFile())
		if err != nil {
			t.Fatal(err)
		}
		g, _ := u.GatewayRules()
		return g
	}
	r.until("the rule in the config and on show", func() bool {
		return rules().Permissions[tool] == config.Block && r.v.rules != nil && r.v.rules.permission[tool] != nil &&
			r.v.rules.permission[tool].Selected == "Block"
	})
	r.v.do(func() { r.v.rules.hide[tool].SetChecked(true) })
	r.until("the tool hidden", func() bool { return len(rules().Hidden) == 1 && rules().Hidden[0] == tool })
	r.v.do(func() { r.v.rules.hideServer.SetChecked(true) })
	r.until("the server hidden", func() bool {
		h := rules().Hidden
		return len(h) == 2 && h[1] == "echo" && r.v.rules != nil && r.v.rules.hide[tool] != nil && r.v.rules.hide[tool].Disabled()
	})
}

// TestRealAppsInUse: an app with a session says it is in use with how many
// tools it sees, warns near its tool limit with what to do, and a client
// mcptray reads no config of is listed by its name, known only by what it
// says of itself.
func TestRealAppsInUse(t *testing.T) {
	var token string
	cursor, _ := gateway.ClientOf("cursor-vscode")
	now := time.Now()
	// The apps' sessions, as the gateway would have them.
	sessions := func() []service.AppSession {
		return []service.AppSession{
			{Client: "cursor-vscode", ClientVersion: "1.7", App: "Cursor", Named: "cursor", Face: gateway.FaceStdio, Started: now, LastSeen: now,
				Listed: true, Tools: 45, ToolLimit: cursor.ToolLimit, ToolWarning: cursor.ToolWarning(45)},
			{Client: "my-script", Face: gateway.FaceHTTP, Started: now, LastSeen: now, Listed: true, Tools: 45},
		}
	}
	r := newReal(t, nil, withGateway(&token), func(r *real, o *service.Options) {
		r.write(filepath.Join(r.dir, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
			"mcptray": map[string]any{"command": filepath.Join(r.dir, "bin", "mcptray"), "args": []string{"stdio"}}}})
		o.Apps = apps.New(apps.Options{Paths: o.Paths, Sessions: sessions})
	})
	a := r.openApps()
	r.v.do(func() {
		if got := a.statusText["cursor"].Text; got != "In use — sees 45 tools" {
			t.Errorf("Cursor's status: %q", got)
		}
		text := strings.Join(labels(a.list), "\n")
		for _, want := range []string{"more than the 40 it can use", "hide servers or tools you don't need", "cursor-vscode 1.7, through mcptray stdio",
			"my-script", "through its HTTP address, known only by what it says of itself"} {
			if !strings.Contains(text, want) {
				t.Errorf("the Apps view lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "mcptray stdio, known only by") {
			t.Errorf("Cursor's session, named by mcptray, is said to be known only by its own word:\n%s", text)
		}
	})
}

// TestRealAppsSearchMode: the Apps view's switch turns the gateway's search
// mode on in the config, and shows it on when the view is drawn again.
func TestRealAppsSearchMode(t *testing.T) {
	var token string
	r := newReal(t, nil, withGateway(&token), func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
	})
	a := r.openApps()
	var search *widget.Check
	r.v.do(func() {
		search = a.search
		if search == nil || search.Checked {
			t.Fatalf("the search switch in a fresh home: %+v", search)
		}
	})
	r.v.do(func() { search.SetChecked(true) })
	r.until("search mode in the config and on show", func() bool {
		u, err := config.ReadUserFile(r.paths.UserFile())
		if err != nil {
			return false
		}
		rules, _ := u.GatewayRules()
		if !rules.Search || !r.v.snap.Gateway.Search {
			return false
		}
		r.v.reloadApps()
		return r.v.apps != nil && r.v.apps.search != nil && r.v.apps.search != search && r.v.apps.search.Checked
	})
}

// TestRealAppsButtonsClearOfTheScrollBar: the Apps view's Connect and
// each set's Edit… end left of the scroll bar, which Fyne draws over the
// content's right edge (Connect was clipped there).
func TestRealAppsButtonsClearOfTheScrollBar(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"a": testServer("a")}}, withGateway(&token), func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := r.svc.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.PutSet(context.Background(), service.SetRequest{Name: "Work", Servers: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	r.openApps()
	r.until("the Work set's Edit…", func() bool { return r.v.apps.editSet["Work"] != nil })
	r.v.do(func() {
		a := r.v.apps
		d := fyne.CurrentApp().Driver()
		edge := d.AbsolutePositionForObject(a.scroll).X + a.scroll.Size().Width - theme.Size(theme.SizeNameScrollBar)
		for name, b := range map[string]*widget.Button{"Connect": a.connect["cursor"], "Edit…": a.editSet["Work"]} {
			if right := d.AbsolutePositionForObject(b).X + b.Size().Width; right > edge {
				t.Errorf("%s ends at %.0f, under the scroll bar (from %.0f)", name, right, edge)
			}
		}
	})
}
