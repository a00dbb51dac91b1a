package tray

import "testing"

// TestTodayLine: today's count goes right under the summary and opens the
// window.
func TestTodayLine(t *testing.T) {
	m := withToday(Menu{Items: []Item{{Label: "2 servers connected", Disabled: true}, {Separator: true}, {Label: "Quit", Action: QuitAction}}}, 42)
	if len(m.Items) != 4 || m.Items[1].Label != "Today: 42 calls from your AI apps" || m.Items[1].Action != OpenAction || m.Items[0].Label != "2 servers connected" {
		t.Errorf("menu: %+v", m.Items)
	}
	for n, want := range map[int]string{0: "Today: no calls from your AI apps", 1: "Today: 1 call from your AI apps"} {
		if got := TodayLine(n); got != want {
			t.Errorf("TodayLine(%d) = %q", n, got)
		}
	}
}
