package tray

import (
	"context"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// The sets in the menu: the apps that follow "the tray's set" get the set
// ticked here, and one click on another switches them all at once.

// withSets adds the sets to m, before Open mcptray, when there are any.
func (t *tray) withSets(ctx context.Context, m Menu) Menu {
	if t.opts.Sets == nil {
		return m
	}
	v, err := t.opts.Sets(ctx)
	if err != nil {
		t.log.Debug("reading the sets for the tray", "err", err)
		return m
	}
	return withSets(m, v)
}

// withSets adds v's sets to m, before Open mcptray: a line that says what
// they are for, everything and each set, the tray's ticked.
func withSets(m Menu, v service.SetsView) Menu {
	if len(v.Sets) == 0 {
		return m
	}
	at := len(m.Items)
	for i, it := range m.Items {
		if it.Action == OpenAction && it.Server == "" && it.Label == "Open mcptray" {
			at = i
			break
		}
	}
	tick := func(on bool, label string) string {
		if on {
			return "✓ " + label
		}
		return "   " + label
	}
	items := []Item{
		{Label: "The tray's set, for the apps that follow it:", Disabled: true},
		{Label: tick(v.Tray == "", "Every server"), Action: SetTrayAction, Set: service.GetsEverything},
	}
	for _, s := range v.Sets {
		items = append(items, Item{Label: tick(v.Tray == s.Name, shorten(sanitize.Line(s.Words), maxNameLen+maxReasonLen)), Action: SetTrayAction, Set: s.Name})
	}
	items = append(items, Item{Separator: true})
	out := make([]Item, 0, len(m.Items)+len(items))
	out = append(out, m.Items[:at]...)
	out = append(out, items...)
	m.Items = append(out, m.Items[at:]...)
	return m
}
