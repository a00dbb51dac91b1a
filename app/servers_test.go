package app

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/config"
)

func TestServersView(t *testing.T) {
	test.NewTempApp(t)
	set := &config.Set{
		Servers: []config.Entry{
			{Server: config.Server{Name: "files", Scope: config.User}, Approval: config.NotNeeded},
			{Server: config.Server{Name: "no\u202etes", Scope: config.Local}, Approval: config.Pending},
		},
		Problems: []config.Problem{{File: "x.json", Message: "is not valid JSON"}},
	}
	v := newServersView(set)
	w := test.NewWindow(v.content)
	defer w.Close()

	if got, want := v.summary.Text, "2 servers · 1 awaiting approval · 1 config problem"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	want := []string{"files — user — ready", "notes — local — awaiting approval"}
	if len(v.rows) != len(want) {
		t.Fatalf("rows = %q, want %q", v.rows, want)
	}
	for i := range want {
		if v.rows[i] != want[i] {
			t.Errorf("row %d = %q, want %q (names must be sanitised)", i, v.rows[i], want[i])
		}
	}
	// The list really renders the rows.
	item := test.WidgetRenderer(v.list).Objects()
	if len(item) == 0 {
		t.Fatal("the list rendered nothing")
	}

	v.show(&config.Set{})
	if v.summary.Text != "No MCP servers yet." || v.list.Length() != 0 {
		t.Errorf("after an empty set: summary %q, %d rows", v.summary.Text, v.list.Length())
	}
}
