package window

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
)

// TestRealAppsWhatItGets: in the Apps view, each app mcptray knows has
// "What it gets"; picking a set by click gives it to the app (kept in the
// sets' file), and the app's line says so in words with the set's counts.
func TestRealAppsWhatItGets(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"a": testServer("a"), "b": testServer("b")}}, withGateway(&token),
		func(r *real, _ *service.Options) {
			if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
				t.Fatal(err)
			}
		})
	ctx := context.Background()
	if _, err := r.svc.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	a := r.openApps()
	// Making the set by click: New set…, a name, a server, Save.
	r.until("New set…", func() bool { return a.newSet != nil })
	var newSet *widget.Button
	r.v.do(func() { newSet = a.newSet })
	r.tap(newSet)
	r.until("the New set dialog", func() bool { return a.setEditor != nil })
	var save *widget.Button
	r.v.do(func() {
		f := a.setEditor
		f.name.SetText("Work")
		if f.servers["a"] == nil || f.servers["b"] == nil {
			t.Fatalf("the New set dialog's servers: %v", f.servers)
		}
		f.servers["a"].in.SetChecked(true)
		save = f.save
	})
	screenshot(t, r, "apps-new-set")
	r.tap(save)
	r.until("Cursor's What it gets", func() bool {
		return r.v.apps.gets["cursor"] != nil && strings.Contains(strings.Join(r.v.apps.gets["cursor"].Options, "|"), "The Work set")
	})
	a = r.v.apps
	var gets *widget.Select
	r.v.do(func() {
		gets = a.gets["cursor"]
		if gets.Selected != "Every server" || !strings.Contains(strings.Join(gets.Options, "|"), "The Work set") {
			t.Errorf("Cursor's What it gets before a click: %q of %q", gets.Selected, gets.Options)
		}
	})
	r.v.do(func() { gets.SetSelected("The Work set") })
	r.until("the Work set given to Cursor", func() bool {
		c, err := sets.Read(sets.Path(r.paths))
		return err == nil && c.Apps["cursor"] == "Work"
	})
	r.until("Cursor's words", func() bool {
		w := r.v.apps.getsText["cursor"]
		return w != nil && strings.HasPrefix(w.Text, "Cursor: the Work set, 1 server, ")
	})
	screenshot(t, r, "apps-what-it-gets")
}
