package tray

import (
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/service"
)

// withHeld is a connected server that holds n changed tools.
func withHeld(name string, n int) service.Server {
	s := sv(name, service.Connected, "")
	s.Review = &service.Review{}
	for range n {
		s.Review.Held = append(s.Review.Held, service.ToolChange{Change: pins.Change{Kind: pins.Changed, Name: "t"}})
	}
	return s
}

func TestHeldChangesInMenu(t *testing.T) {
	t.Parallel()
	m := Build(snap(withHeld("weather", 1), withHeld("fs", 0), withHeld("git", 2)))
	if m.Icon != assets.StateAttention {
		t.Errorf("icon %s, want attention", m.Icon)
	}
	for _, want := range []Item{
		{Label: "weather changed 1 tool — Review…", Action: OpenAction, Server: "weather"},
		{Label: "git changed 2 tools — Review…", Action: OpenAction, Server: "git"},
	} {
		if !slices.Contains(m.Items, want) {
			t.Errorf("menu %+v lacks %+v", m.Items, want)
		}
	}
	if m := Build(snap(withHeld("fs", 0))); m.Icon != assets.StateOK || len(heldItems([]service.Server{withHeld("fs", 0)})) != 0 {
		t.Errorf("nothing held: icon %s", m.Icon)
	}
}

func TestHeldChangesNotified(t *testing.T) {
	t.Parallel()
	prev, next := snap(withHeld("weather", 0)), snap(withHeld("weather", 1))
	got := Notices(prev, next, false)
	if len(got) != 1 || got[0].Title != "weather changed 1 tool" || got[0].Server != "weather" {
		t.Errorf("notices %+v", got)
	}
	if got := Notices(next, next, false); len(got) != 0 {
		t.Errorf("the same change notified again: %+v", got)
	}
	if got := Notices(prev, next, true); len(got) != 0 {
		t.Errorf("notified with the window open: %+v", got)
	}
}

// TestKeptHeldNotCounted: a change the person chose to keep held is not
// counted again: no menu line, no attention, no notification, while the
// server's other held change still is.
func TestKeptHeldNotCounted(t *testing.T) {
	t.Parallel()
	kept := withHeld("weather", 1)
	kept.Review.Held[0].KeptSince = time.Date(2026, 12, 2, 8, 15, 0, 0, time.UTC)
	m := Build(snap(kept))
	if m.Icon != assets.StateOK || len(heldItems([]service.Server{kept})) != 0 {
		t.Errorf("kept held: icon %s, items %+v", m.Icon, heldItems([]service.Server{kept}))
	}
	if got := Notices(snap(withHeld("weather", 0)), snap(kept), false); len(got) != 0 {
		t.Errorf("kept held, notified: %+v", got)
	}
	// A server that does not run now says what it held when it last
	// ran (for mcptray list); the tray does not count it.
	down := withHeld("weather", 1)
	down.State = service.Failed
	if m := Build(snap(down)); len(heldItems([]service.Server{down})) != 0 || m.Icon == assets.StateAttention && anyHeld(snap(down)) {
		t.Errorf("a server that is down is counted: %+v", heldItems([]service.Server{down}))
	}
	both := withHeld("weather", 2)
	both.Review.Held[0].KeptSince = kept.Review.Held[0].KeptSince
	if items := heldItems([]service.Server{both}); len(items) != 1 || items[0].Label != "weather changed 1 tool — Review…" {
		t.Errorf("one kept and one waiting: %+v", items)
	}
}
