package window

import (
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service"
)

// TestSettingsSandboxCheck: Settings says that no check ran yet; its
// button asks the running mcptray to check, and shows what it found: a
// door that did not hold is said, with what to do.
func TestSettingsSandboxCheck(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.do(h.v.showSettings)
	h.waitEach("activity settings", "sandbox check")
	var s *sandboxCheck
	h.do(func() {
		s = h.v.settings.sandbox
		if !strings.Contains(s.result.Text, "has not checked its sandbox on this computer yet") || s.check.Disabled() {
			t.Errorf("before any check: %q, button disabled %v", s.result.Text, s.check.Disabled())
		}
	})
	r := service.SandboxCheck{Time: time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC), Kernel: "6.18.44", ABI: 7, Namespaces: true, Kinds: []service.SandboxKindResult{{
		Kind: service.SandboxKinds[0],
		Doors: []service.SandboxDoorResult{
			{Door: "ssh-keys", Tries: "read your SSH keys (~/.ssh)", State: "held"},
			{Door: "udp", Tries: "send a datagram (UDP) past mcptray's proxy", State: "open", Open: "a server could send datagrams anywhere",
				Words: "a server could send datagrams anywhere. Until it holds, run only servers you trust"},
		},
	}}}
	h.b.mu.Lock()
	h.b.checked = &r
	h.b.mu.Unlock()
	h.tap(s.check)
	if c := h.call(); c != "check the sandbox" {
		t.Errorf("the button asked the backend to %q", c)
	}
	h.wait("action")
	h.do(func() {
		for _, want := range []string{"Not every door held on this computer", "Linux 6.18.44", "A server could send datagrams anywhere (a local server, through mcptray's proxy).", "Until it holds, run only servers you trust"} {
			if !strings.Contains(s.result.Text, want) {
				t.Errorf("after the check, Settings lacks %q:\n%s", want, s.result.Text)
			}
		}
		if s.check.Disabled() {
			t.Error("the button stays disabled after the check")
		}
	})
}
