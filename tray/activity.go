package tray

import (
	"context"
	"fmt"
	"time"
)

// todayRefresh is how often the tray reads today's count of calls again:
// calls change no snapshot, so no notice says when.
const todayRefresh = 30 * time.Second

// TodayLine is the menu's line with today's count of the apps' calls
// through mcptray (the activity record's).
func TodayLine(calls int) string {
	switch calls {
	case 0:
		return "Today: no calls from your AI apps"
	case 1:
		return "Today: 1 call from your AI apps"
	}
	return fmt.Sprintf("Today: %d calls from your AI apps", calls)
}

// withToday is m with today's line under its summary, opening the window.
func withToday(m Menu, calls int) Menu {
	it := Item{Label: TodayLine(calls), Action: OpenAction}
	if len(m.Items) == 0 {
		m.Items = []Item{it}
		return m
	}
	items := make([]Item, 0, len(m.Items)+1)
	items = append(items, m.Items[0], it)
	m.Items = append(items, m.Items[1:]...)
	return m
}

// today adds today's line to m when Options.Today says how many calls
// there were.
func (t *tray) today(ctx context.Context, m Menu) Menu {
	if t.opts.Today == nil {
		return m
	}
	n, err := t.opts.Today(ctx)
	if err != nil {
		t.log.Debug("reading today's count of calls", "err", err)
		return m
	}
	return withToday(m, n)
}

// todayTicks is a channel that ticks every todayRefresh when the tray
// shows today's count, else nil; stop stops it.
func (t *tray) todayTicks() (ticks <-chan time.Time, stop func()) {
	if t.opts.Today == nil {
		return nil, func() {}
	}
	tk := time.NewTicker(todayRefresh)
	return tk.C, tk.Stop
}
