package tray

import (
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

func TestNotices(t *testing.T) {
	t.Parallel()
	hidden := sv("hidden", service.NeedsAuth, "")
	hidden.Suppressed = "blocked by the organisation"
	hiddenBefore := hidden
	hiddenBefore.State = service.Connected

	tests := []struct {
		name       string
		prev, next service.Snapshot
		windowOpen bool
		want       []string // servers notified, in order
	}{
		{"nothing", snap(), snap(), false, nil},
		{"first snapshot", snap(), snap(sv("a", service.NeedsAuth, ""), sv("b", service.AwaitingApproval, ""), sv("c", service.Failed, "")), false, []string{"a", "b"}},
		{"starts needing sign-in", snap(sv("a", service.Connected, "")), snap(sv("a", service.NeedsAuth, "")), false, []string{"a"}},
		{"starts waiting for approval", snap(sv("a", service.Connected, "")), snap(sv("a", service.AwaitingApproval, "")), false, []string{"a"}},
		{"stays needing sign-in", snap(sv("a", service.NeedsAuth, "")), snap(sv("a", service.NeedsAuth, "other reason")), false, nil},
		{"stays waiting", snap(sv("a", service.AwaitingApproval, "")), snap(sv("a", service.AwaitingApproval, "")), false, nil},
		{"comes back", snap(sv("a", service.Pending, "")), snap(sv("a", service.NeedsAuth, "")), false, []string{"a"}},
		{"from approval to sign-in", snap(sv("a", service.AwaitingApproval, "")), snap(sv("a", service.NeedsAuth, "")), false, []string{"a"}},
		{"leaves", snap(sv("a", service.NeedsAuth, "")), snap(sv("a", service.Connected, "")), false, nil},
		{"new server", snap(sv("a", service.Connected, "")), snap(sv("a", service.Connected, ""), sv("b", service.AwaitingApproval, "")), false, []string{"b"}},
		{"failures are not notified", snap(sv("a", service.Connected, "")), snap(sv("a", service.Failed, "boom")), false, nil},
		{"window open", snap(sv("a", service.Connected, "")), snap(sv("a", service.NeedsAuth, "")), true, nil},
		{"suppressed", snap(hiddenBefore), snap(hidden), false, nil},
		{"no longer suppressed", snap(hidden), snap(sv("hidden", service.NeedsAuth, "")), false, []string{"hidden"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, n := range Notices(tt.prev, tt.next, tt.windowOpen) {
				got = append(got, n.Server)
				if n.Title == "" || n.Body == "" {
					t.Errorf("notice for %q has no text: %+v", n.Server, n)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("notified %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNoticesOncePerChange walks one server through a sequence of
// snapshots, as the tray sees them.
func TestNoticesOncePerChange(t *testing.T) {
	t.Parallel()
	steps := []struct {
		state service.State
		want  int
	}{
		{service.Pending, 0},
		{service.NeedsAuth, 1},
		{service.NeedsAuth, 0},
		{service.NeedsAuth, 0},
		{service.Pending, 0},
		{service.NeedsAuth, 1},
	}
	var prev service.Snapshot
	for i, st := range steps {
		next := snap(sv("github", st.state, ""))
		if got := len(Notices(prev, next, false)); got != st.want {
			t.Errorf("step %d (%s): %d notices, want %d", i, st.state, got, st.want)
		}
		prev = next
	}
}

func TestNoticeText(t *testing.T) {
	t.Parallel()
	got := Notices(snap(), snap(sv("bad\nname\x1b", service.NeedsAuth, "")), false)
	if len(got) != 1 {
		t.Fatalf("got %d notices, want 1", len(got))
	}
	if want := "bad name needs you to sign in"; got[0].Title != want {
		t.Errorf("title = %q, want %q", got[0].Title, want)
	}
	if got[0].Server != "bad\nname\x1b" {
		t.Errorf("server = %q, want the name as the service has it", got[0].Server)
	}
}
