package tray

import (
	"slices"
	"testing"

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
