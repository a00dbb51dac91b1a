package tray

import (
	"context"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/service"
)

// todayRefresh is how often the tray reads today's counts again: calls
// change no snapshot, so no notice says when.
const todayRefresh = 30 * time.Second

// TodayLine is the menu's line with today's count of the apps' calls
// through mcptray, and of those mcptray's flow guard held (asked about
// with what the app had read, or refused), when it held any.
func TodayLine(calls, held int) string {
	var line string
	switch calls {
	case 0:
		line = "Today: no calls from your AI apps"
	case 1:
		line = "Today: 1 call from your AI apps"
	default:
		line = fmt.Sprintf("Today: %d calls from your AI apps", calls)
	}
	if held > 0 {
		line += fmt.Sprintf("; the guard held %d", held)
	}
	return line
}

// withToday is m with today's line under its summary, opening the window.
func withToday(m Menu, today service.ActivitySummary) Menu {
	it := Item{Label: TodayLine(today.Calls, today.Held), Action: OpenAction}
	if len(m.Items) == 0 {
		m.Items = []Item{it}
		return m
	}
	items := make([]Item, 0, len(m.Items)+1)
	items = append(items, m.Items[0], it)
	m.Items = append(items, m.Items[1:]...)
	return m
}

// today adds today's line to m when Options.Today says what the apps did.
func (t *tray) today(ctx context.Context, m Menu) Menu {
	if t.opts.Today == nil {
		return m
	}
	sum, err := t.opts.Today(ctx)
	if err != nil {
		t.log.Debug("reading today's count of calls", "err", err)
		return m
	}
	return withToday(m, sum)
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
