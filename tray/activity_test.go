package tray

import (
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestTodayLine: today's count goes right under the summary and opens the
// window; the calls the guard held are counted on the same line, when it
// held any.
func TestTodayLine(t *testing.T) {
	m := withToday(Menu{Items: []Item{{Label: "2 servers connected", Disabled: true}, {Separator: true}, {Label: "Quit", Action: QuitAction}}}, service.ActivitySummary{Calls: 42, Held: 3})
	if len(m.Items) != 4 || m.Items[1].Label != "Today: 42 calls from your AI apps; the guard held 3" || m.Items[1].Action != OpenAction || m.Items[0].Label != "2 servers connected" {
		t.Errorf("menu: %+v", m.Items)
	}
	for _, c := range []struct {
		calls, held int
		want        string
	}{
		{0, 0, "Today: no calls from your AI apps"},
		{1, 0, "Today: 1 call from your AI apps"},
		{1, 1, "Today: 1 call from your AI apps; the guard held 1"},
		{42, 0, "Today: 42 calls from your AI apps"},
	} {
		if got := TodayLine(c.calls, c.held); got != c.want {
			t.Errorf("TodayLine(%d, %d) = %q, want %q", c.calls, c.held, got, c.want)
		}
	}
}
