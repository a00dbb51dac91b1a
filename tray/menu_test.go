package tray

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/service"
)

func sv(name string, st service.State, reason string) service.Server {
	return service.Server{Name: name, State: st, Reason: reason}
}

func snap(servers ...service.Server) service.Snapshot {
	return service.Snapshot{Servers: servers, Keychain: service.Keychain{Available: true}}
}

// The fixed tail of every menu that is not paused.
var tail = []Item{
	{Label: "Open mcptray", Action: OpenAction},
	{Label: "Pause all", Action: PauseAction},
	{Label: "Quit", Action: QuitAction},
}

var separator = Item{Separator: true}

func TestBuild(t *testing.T) {
	t.Parallel()
	suppressed := sv("shadow", service.Failed, "boom")
	suppressed.Suppressed = "a user server has the same name"
	paused := snap(sv("github", service.Disabled, ""))
	paused.Paused = true
	noKeychain := snap(sv("github", service.Connected, ""))
	noKeychain.Keychain = service.Keychain{Problem: "no keyring"}

	tests := []struct {
		name string
		in   service.Snapshot
		icon string
		want []Item
	}{{
		name: "no servers",
		in:   snap(),
		icon: assets.StateOK,
		want: slices.Concat([]Item{{Label: "No servers yet", Disabled: true}, separator}, tail),
	}, {
		name: "only suppressed servers",
		in:   snap(suppressed),
		icon: assets.StateOK,
		want: slices.Concat([]Item{{Label: "No servers yet", Disabled: true}, separator}, tail),
	}, {
		name: "all connected",
		in:   snap(sv("github", service.Connected, ""), sv("fs", service.Connected, "")),
		icon: assets.StateOK,
		want: slices.Concat([]Item{
			{Label: "2 connected", Disabled: true},
			separator,
			{Label: "github — connected", Action: OpenAction, Server: "github"},
			{Label: "fs — connected", Action: OpenAction, Server: "fs"},
			separator,
		}, tail),
	}, {
		name: "every state",
		in: snap(
			sv("github", service.Connected, ""),
			sv("notion", service.NeedsAuth, "the token expired"),
			sv("local", service.AwaitingApproval, ""),
			sv("fs", service.Failed, "npx is not installed"),
			sv("new", service.Pending, ""),
			sv("old", service.Disabled, "turned off"),
			suppressed,
		),
		icon: assets.StateFailing,
		want: slices.Concat([]Item{
			{Label: "1 connected · 1 needs sign-in · 1 waiting for approval · 1 failed · 1 starting · 1 off", Disabled: true},
			separator,
			{Label: "github — connected", Action: OpenAction, Server: "github"},
			{Label: "notion — needs sign-in", Action: OpenAction, Server: "notion"},
			{Label: "local — waiting for approval", Action: OpenAction, Server: "local"},
			{Label: "fs — failed: npx is not installed", Action: OpenAction, Server: "fs"},
			{Label: "new — starting…", Action: OpenAction, Server: "new"},
			{Label: "old — off", Action: OpenAction, Server: "old"},
			separator,
			{Label: "Review 1 server waiting for approval…", Action: OpenAction, Server: "local"},
			{Label: "Sign in to notion…", Action: SignInAction, Server: "notion"},
			{Label: "Retry fs", Action: RetryAction, Server: "fs"},
		}, tail),
	}, {
		name: "plurals",
		in: snap(
			sv("a", service.AwaitingApproval, ""), sv("b", service.AwaitingApproval, ""),
			sv("c", service.NeedsAuth, ""), sv("d", service.NeedsAuth, ""),
			sv("e", service.Failed, ""), sv("f", service.Failed, ""),
		),
		icon: assets.StateFailing,
		want: slices.Concat([]Item{
			{Label: "2 need sign-in · 2 waiting for approval · 2 failed", Disabled: true},
			separator,
			{Label: "a — waiting for approval", Action: OpenAction, Server: "a"},
			{Label: "b — waiting for approval", Action: OpenAction, Server: "b"},
			{Label: "c — needs sign-in", Action: OpenAction, Server: "c"},
			{Label: "d — needs sign-in", Action: OpenAction, Server: "d"},
			{Label: "e — failed", Action: OpenAction, Server: "e"},
			{Label: "f — failed", Action: OpenAction, Server: "f"},
			separator,
			{Label: "Review 2 servers waiting for approval…", Action: OpenAction, Server: "a"},
			{Label: "Sign in to c…", Action: SignInAction, Server: "c"},
			{Label: "Sign in to d…", Action: SignInAction, Server: "d"},
			{Label: "Retry e", Action: RetryAction, Server: "e"},
			{Label: "Retry f", Action: RetryAction, Server: "f"},
		}, tail),
	}, {
		name: "needs the person but nothing failed",
		in:   snap(sv("github", service.Connected, ""), sv("notion", service.NeedsAuth, "")),
		icon: assets.StateAttention,
		want: slices.Concat([]Item{
			{Label: "1 connected · 1 needs sign-in", Disabled: true},
			separator,
			{Label: "github — connected", Action: OpenAction, Server: "github"},
			{Label: "notion — needs sign-in", Action: OpenAction, Server: "notion"},
			separator,
			{Label: "Sign in to notion…", Action: SignInAction, Server: "notion"},
		}, tail),
	}, {
		name: "paused",
		in:   paused,
		icon: assets.StatePaused,
		want: []Item{
			{Label: "Paused", Disabled: true},
			separator,
			{Label: "github — off", Action: OpenAction, Server: "github"},
			separator,
			{Label: "Open mcptray", Action: OpenAction},
			{Label: "Resume all", Action: ResumeAction},
			{Label: "Quit", Action: QuitAction},
		},
	}, {
		name: "keychain unavailable",
		in:   noKeychain,
		icon: assets.StateOK,
		want: slices.Concat([]Item{
			{Label: "1 connected", Disabled: true},
			separator,
			{Label: "github — connected", Action: OpenAction, Server: "github"},
			separator,
			{Label: "Keychain unavailable — sign-ins can't be kept", Action: OpenAction},
		}, tail),
	}, {
		name: "names and reasons are sanitised and cut",
		in: snap(
			sv("evil\x1b[31m\nname", service.Failed, "line one\nline two "+strings.Repeat("x", 80)),
			sv(strings.Repeat("n", 40), service.Connected, ""),
		),
		icon: assets.StateFailing,
		want: slices.Concat([]Item{
			{Label: "1 connected · 1 failed", Disabled: true},
			separator,
			{
				Label:  "evil[31m name — failed: line one line two " + strings.Repeat("x", 29) + "…",
				Action: OpenAction, Server: "evil\x1b[31m\nname",
			},
			{Label: strings.Repeat("n", 31) + "… — connected", Action: OpenAction, Server: strings.Repeat("n", 40)},
			separator,
			{Label: "Retry evil[31m name", Action: RetryAction, Server: "evil\x1b[31m\nname"},
		}, tail),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := Build(tt.in)
			if m.Icon != tt.icon {
				t.Errorf("icon = %q, want %q", m.Icon, tt.icon)
			}
			if got := IconState(tt.in); got != m.Icon {
				t.Errorf("IconState = %q, Build's icon %q", got, m.Icon)
			}
			if want := "mcptray: " + tt.want[0].Label; m.Tooltip != want {
				t.Errorf("tooltip = %q, want %q", m.Tooltip, want)
			}
			if !slices.Equal(m.Items, tt.want) {
				t.Errorf("items:\n%s\nwant:\n%s", dump(m.Items), dump(tt.want))
			}
		})
	}
}

func TestBuildManyServers(t *testing.T) {
	t.Parallel()
	var s service.Snapshot
	s.Keychain.Available = true
	for i := range 20 {
		s.Servers = append(s.Servers,
			sv(fmt.Sprintf("auth%d", i), service.NeedsAuth, ""),
			sv(fmt.Sprintf("fail%d", i), service.Failed, ""))
	}
	m := Build(s)
	labels := make([]string, 0, len(m.Items))
	for _, it := range m.Items {
		labels = append(labels, it.Label)
	}
	want := []string{"20 need sign-in · 20 failed", ""}
	for i := range maxServerItems / 2 {
		want = append(want, fmt.Sprintf("auth%d — needs sign-in", i), fmt.Sprintf("fail%d — failed", i))
	}
	want = append(want, "28 more…", "",
		"Sign in to 20 servers…", "Review 20 servers that failed…",
		"Open mcptray", "Pause all", "Quit")
	if !slices.Equal(labels, want) {
		t.Errorf("labels:\n%q\nwant:\n%q", labels, want)
	}
	for _, it := range m.Items {
		switch it.Label {
		case "Sign in to 20 servers…":
			if it.Action != OpenAction || it.Server != "auth0" {
				t.Errorf("%q opens %v %q, want the window at auth0", it.Label, it.Action, it.Server)
			}
		case "Review 20 servers that failed…":
			if it.Action != OpenAction || it.Server != "fail0" {
				t.Errorf("%q opens %v %q, want the window at fail0", it.Label, it.Action, it.Server)
			}
		}
	}
}

func TestIconStateOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		paused bool
		states []service.State
		want   string
	}{
		{"none", false, nil, assets.StateOK},
		{"connected and starting", false, []service.State{service.Connected, service.Pending, service.Disabled}, assets.StateOK},
		{"approval", false, []service.State{service.Connected, service.AwaitingApproval}, assets.StateAttention},
		{"sign-in", false, []service.State{service.NeedsAuth}, assets.StateAttention},
		{"failed beats attention", false, []service.State{service.NeedsAuth, service.AwaitingApproval, service.Failed}, assets.StateFailing},
		{"paused beats failed", true, []service.State{service.Failed, service.NeedsAuth}, assets.StatePaused},
		{"paused with none", true, nil, assets.StatePaused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := service.Snapshot{Paused: tt.paused}
			for i, st := range tt.states {
				s.Servers = append(s.Servers, sv(fmt.Sprint(i), st, ""))
			}
			if got := IconState(s); got != tt.want {
				t.Errorf("IconState = %q, want %q", got, tt.want)
			}
			if !slices.Contains(assets.States, tt.want) {
				t.Errorf("%q is not an assets state", tt.want)
			}
		})
	}
}

func dump(items []Item) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "\t%+v\n", it)
	}
	return b.String()
}

// TestIconStateNeedsSecret: a server that only waits for a secret asks for
// the person, like a sign-in; another failure still shows as failing.
func TestIconStateNeedsSecret(t *testing.T) {
	t.Parallel()
	needs := sv("gh", service.Failed, "needs GITHUB_TOKEN")
	needs.Fix = service.Fix{Action: service.SetSecretAction, Label: "Enter GITHUB_TOKEN…", Secret: "GITHUB_TOKEN"}
	s := service.Snapshot{Servers: []service.Server{sv("a", service.Connected, ""), needs}}
	if got := IconState(s); got != assets.StateAttention {
		t.Errorf("a server needing a secret: %q, want %q", got, assets.StateAttention)
	}
	s.Servers = append(s.Servers, sv("b", service.Failed, "it crashed"))
	if got := IconState(s); got != assets.StateFailing {
		t.Errorf("with another failure: %q, want %q", got, assets.StateFailing)
	}
}

// TestMenuNeedsSecret: a server that waits for a secret is offered as
// "Enter NAME for server…", which opens the window there, not as Retry.
func TestMenuNeedsSecret(t *testing.T) {
	t.Parallel()
	needs := sv("gh", service.Failed, "needs GITHUB_TOKEN")
	needs.Fix = service.Fix{Action: service.SetSecretAction, Label: "Enter GITHUB_TOKEN…", Secret: "GITHUB_TOKEN"}
	m := Build(service.Snapshot{Servers: []service.Server{needs}})
	var found bool
	for _, it := range m.Items {
		if it.Label == "Retry gh" {
			t.Errorf("a server waiting for a secret is offered a retry")
		}
		if it.Label == "Enter GITHUB_TOKEN for gh…" {
			found = true
			if it.Action != OpenAction || it.Server != "gh" {
				t.Errorf("the item does %v at %q, want to open the window at gh", it.Action, it.Server)
			}
		}
	}
	if !found {
		t.Errorf("no item asks for the secret: %+v", m.Items)
	}
}

// TestMenuCountsUpdates: updates of pinned packages that the last check
// found are counted in the menu, which opens the window.
func TestMenuCountsUpdates(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "Review 1 update of servers' packages…", 3: "Review 3 updates of servers' packages…"} {
		m := Build(service.Snapshot{Servers: []service.Server{sv("a", service.Connected, "")}, Updates: n})
		found := false
		for _, it := range m.Items {
			if it.Label == want {
				found = it.Action == OpenAction
			}
		}
		if !found {
			t.Errorf("%d updates: no item %q: %+v", n, want, m.Items)
		}
	}
	for _, it := range Build(service.Snapshot{Servers: []service.Server{sv("a", service.Connected, "")}}).Items {
		if strings.Contains(it.Label, "update") {
			t.Errorf("no update, yet %q", it.Label)
		}
	}
}
