package service

import (
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
)

// TestSummary pins the words the tray and the window both show, and their
// plurals.
func TestSummary(t *testing.T) {
	for _, tt := range []struct {
		name string
		snap Snapshot
		want string
	}{
		{"none", Snapshot{}, "No servers yet"},
		{"only the built-in server", Snapshot{Servers: []Server{{State: conn.Connected, Transport: config.InProcess}}}, "No servers yet"},
		{"paused", Snapshot{Paused: true, Servers: []Server{{State: conn.Connected}}}, "Paused"},
		{"one each", Snapshot{Servers: []Server{
			{State: conn.Connected}, {State: conn.NeedsAuth}, {State: conn.AwaitingApproval},
			{State: conn.Failed}, {State: conn.Pending}, {State: conn.Disabled},
		}}, "1 connected · 1 needs sign-in · 1 waiting for approval · 1 failed · 1 starting · 1 off"},
		{"plurals", Snapshot{Servers: []Server{
			{State: conn.Connected}, {State: conn.Connected}, {State: conn.NeedsAuth}, {State: conn.NeedsAuth},
			{State: conn.AwaitingApproval}, {State: conn.AwaitingApproval}, {State: conn.Failed}, {State: conn.Failed},
			{State: conn.Pending}, {State: conn.Pending}, {State: conn.Disabled}, {State: conn.Disabled},
		}}, "2 connected · 2 need sign-in · 2 waiting for approval · 2 failed · 2 starting · 2 off"},
		{"suppressed not counted", Snapshot{Servers: []Server{
			{State: conn.Connected},
			{State: conn.Disabled, Suppressed: "gives way to the same server in user scope"},
		}}, "1 connected"},
	} {
		if got := tt.snap.Summary(); got != tt.want {
			t.Errorf("%s: Summary() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
