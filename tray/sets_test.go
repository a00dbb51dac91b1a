//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
	"github.com/mcptray/mcptray/tray/traytest"
)

// TestMenuListsSets: the sets come before Open mcptray, the tray's ticked,
// each a click that makes it the tray's; without sets the menu is as it
// was.
func TestMenuListsSets(t *testing.T) {
	t.Parallel()
	base := Build(service.Snapshot{Keychain: service.Keychain{Available: true}})
	if got := withSets(base, service.SetsView{}); !slices.Equal(got.Items, base.Items) {
		t.Errorf("with no sets the menu changed: %+v", got.Items)
	}
	v := service.SetsView{Tray: "Work", Sets: []service.SetView{
		{Set: sets.Set{Name: "Work"}, Words: "the Work set: 3 servers, 41 tools"},
		{Set: sets.Set{Name: "Home\x1b[31m"}, Words: "the Home\x1b[31m set: 1 server, 2 tools"},
	}}
	got := withSets(base, v).Items
	open := slices.IndexFunc(got, func(it Item) bool { return it.Label == "Open mcptray" })
	want := []Item{
		{Label: "The tray's set, for the apps that follow it:", Disabled: true},
		{Label: "   Every server", Action: SetTrayAction, Set: "all"},
		{Label: "✓ the Work set: 3 servers, 41 tools", Action: SetTrayAction, Set: "Work"},
		{Label: "   the Home[31m set: 1 server, 2 tools", Action: SetTrayAction, Set: "Home\x1b[31m"},
		{Separator: true},
	}
	if open < len(want) || !slices.Equal(got[open-len(want):open], want) {
		t.Errorf("the menu's sets:\n got %+v\nwant %+v", got, want)
	}
}

// TestRunSwitchesTheTraysSet: on a real tray (D-Bus), the sets are in the
// menu and one click on a set makes it the tray's.
func TestRunSwitchesTheTraysSet(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	first := snap(sv("github", service.Connected, ""))
	fake := newFake(first)
	switched := make(chan string, 1)
	v := service.SetsView{Sets: []service.SetView{
		{Set: sets.Set{Name: "Work"}, Words: "the Work set: 1 server, 3 tools"},
		{Set: sets.Set{Name: "Home"}, Words: "the Home set: 0 servers, 0 tools"},
	}}
	tr := start(ctx, t, fake, false, func(o *Options) {
		o.Sets = func(context.Context) (service.SetsView, error) { return v, nil }
		o.SetTray = func(_ context.Context, name string) error { switched <- name; return nil }
	})
	if _, err := traytest.WaitMenu(ctx, tr.conn, tr.item, func(m []traytest.MenuItem) bool {
		labels := traytest.Labels(m)
		return slices.Contains(labels, "✓ Every server") && slices.Contains(labels, "   the Work set: 1 server, 3 tools")
	}); err != nil {
		t.Fatal(err)
	}
	tr.click(ctx, t, "   the Work set: 1 server, 3 tools")
	if got := receive(ctx, t, switched, "the tray's set"); got != "Work" {
		t.Errorf("clicking the Work set made %q the tray's", got)
	}
}
