package window

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

// claudeDesktop is where the temporary home keeps Claude Desktop's config.
func claudeDesktop(p config.Paths) string {
	for _, s := range p.ImportSources() {
		if s.App == "Claude Desktop" {
			return s.File
		}
	}
	panic("no Claude Desktop among the import sources")
}

// TestRealImport: a server in Claude Desktop's config is offered with a
// checkbox from the Add menu; importing it copies its entry, as written,
// into mcptray's own config, so that it keeps running once Claude Desktop
// drops it.
func TestRealImport(t *testing.T) {
	entry := map[string]any{"command": testServerBin, "args": []string{"-name", "desk"}, "env": map[string]string{"DESK_MODE": "quiet"}}
	r := newReal(t, nil, following, withFile(claudeDesktop, map[string]any{"mcpServers": map[string]any{"desk": entry}}))
	r.until("desk to run from Claude Desktop's config", func() bool {
		sv, ok := r.v.snap.Find("desk")
		return ok && sv.Scope == config.Imported && sv.State == service.Connected
	})

	r.tap(r.v.addButton)
	r.v.do(func() { tapMenuItem(t, r.win.Canvas(), "Import from your other apps…") })
	a := r.v.importDialog
	if a == nil || len(a.rows) != 1 || a.ok == nil {
		t.Fatalf("the import dialog does not offer desk alone: %+v", a)
	}
	var text string
	r.v.do(func() { text = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n") })
	for _, want := range []string{"Importing copies a server", "runs " + testServerBin + " -name desk"} {
		if !strings.Contains(text, want) {
			t.Errorf("the import dialog lacks %q:\n%s", want, text)
		}
	}
	c := a.rows[0].check
	if c.Text != "desk — from Claude Desktop" || !c.Checked || a.ok.Text != "Import 1 server" || a.ok.Disabled() {
		t.Fatalf("desk's checkbox %q (checked %v), button %q (disabled %v)", c.Text, c.Checked, a.ok.Text, a.ok.Disabled())
	}
	r.tap(c)
	if c.Checked || !a.ok.Disabled() {
		t.Errorf("unchecked, desk is still to be imported: button %q, disabled %v", a.ok.Text, a.ok.Disabled())
	}
	r.tap(c)
	r.tap(a.ok)

	r.until("desk to run from mcptray's config", func() bool {
		sv, ok := r.v.snap.Find("desk")
		return ok && sv.Scope == config.User && sv.State == service.Connected
	})
	u, err := config.ReadUserFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(u.MCPServers["desk"], &got); err != nil {
		t.Fatalf("desk in mcptray's config: %s: %v", u.MCPServers["desk"], err)
	}
	b, _ := json.Marshal(entry)
	_ = json.Unmarshal(b, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mcptray's config has desk as %v, want Claude Desktop's entry %v", got, want)
	}
	if top := r.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("the import dialog stays after importing: %q", labels(top))
	}

	// Claude Desktop drops desk: it keeps running from mcptray.
	r.write(claudeDesktop(r.paths), map[string]any{"mcpServers": map[string]any{}})
	r.until("Claude Desktop's desk to go", func() bool {
		for _, sv := range r.v.snap.Servers {
			if sv.Scope == config.Imported {
				return false
			}
		}
		return true
	})
	if !r.shows("desk", service.Connected) {
		sv, _ := r.v.snap.Find("desk")
		t.Errorf("desk stopped with Claude Desktop's copy: %+v", sv)
	}
}

// TestWindowImportOffers: only servers from another app's own file, not
// already in mcptray's config, are offered; with none the dialog says so.
func TestWindowImportOffers(t *testing.T) {
	s := sampleSnapshot()
	s.Servers = append(s.Servers,
		service.Server{Name: "files (Cursor)", ConfigName: "files", Scope: config.Imported, Origin: config.Origin{File: "/home/me/.cursor/mcp.json", App: "Cursor"},
			Suppressed: "gives way to the same server in user scope", SuppressedBy: "files"},
		service.Server{Name: "proj-db", Scope: config.Imported, Origin: config.Origin{File: "/home/me/.claude.json", App: "Claude Code", Folder: "/home/me/proj"}},
		service.Server{Name: "spoof\u202E", Scope: config.Imported, Command: "evil\u202Etxt.exe", Origin: config.Origin{File: "/home/me/.cursor/mcp.json", App: "Cursor"}},
	)
	h := newHarness(t, s, Options{})
	h.do(func() {
		test.Tap(h.v.addButton)
		tapMenuItem(t, h.win.Canvas(), "Import from your other apps…")
		var offered []string
		for _, r := range h.v.importDialog.rows {
			offered = append(offered, r.check.Text)
		}
		if want := []string{"notion — from Claude Desktop", "broken — from Cursor", "spoof — from Cursor"}; !reflect.DeepEqual(offered, want) {
			t.Errorf("offered %q, want %q", offered, want)
		}
		for _, l := range labels(h.win.Canvas().Overlays().Top()) {
			if strings.ContainsRune(l, '\u202E') {
				t.Errorf("the import dialog shows a bidi control: %q", l)
			}
		}
		h.v.importDialog.d.Hide()
	})

	h.b.set(service.Snapshot{Keychain: service.Keychain{Available: true}})
	h.wait("snapshot")
	h.do(func() {
		test.Tap(h.v.addButton)
		tapMenuItem(t, h.win.Canvas(), "Import from your other apps…")
		if a := h.v.importDialog; len(a.rows) != 0 || indexOf(labels(h.win.Canvas().Overlays().Top()), importNone) < 0 {
			t.Errorf("with nothing to import the dialog does not say so: %q", labels(h.win.Canvas().Overlays().Top()))
		}
	})
}

// tapMenuItem taps the item called label in the pop-up menu on top of c.
func tapMenuItem(t *testing.T, c fyne.Canvas, label string) {
	t.Helper()
	var found fyne.Tappable
	// walk reports whether o shows label; found is the innermost
	// tappable that does.
	var walk func(o fyne.CanvasObject) bool
	walk = func(o fyne.CanvasObject) bool {
		if o == nil || found != nil {
			return false
		}
		has := false
		switch x := o.(type) {
		case *canvas.Text:
			return x.Text == label
		case *fyne.Container:
			for _, c := range x.Objects {
				has = walk(c) || has
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				has = walk(c) || has
			}
			if tp, ok := x.(fyne.Tappable); ok && has && found == nil {
				found = tp
			}
		}
		return has
	}
	walk(c.Overlays().Top())
	if found == nil {
		t.Fatalf("no menu item %q on top", label)
	}
	test.Tap(found)
}
