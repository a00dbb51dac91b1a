package service

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// startChecking is start as the running mcptray, with this test program
// as the servers' launcher and as the sandbox's probe.
func (h *home) startChecking() *Service {
	h.t.Helper()
	self, err := os.Executable()
	if err != nil {
		h.t.Fatal(err)
	}
	return h.start(true, func(o *Options) {
		o.Launcher, o.SandboxProbe, o.Only = self, []string{self, sandbox.ProbeArg}, []string{}
	})
}

// TestSandboxCheckAtStart: the running mcptray checks its sandbox at its
// first start and keeps the check with the kernel and its version; it
// does not check again at a start on the same kernel and mcptray, and
// does when the kernel changed. What it says of a sandbox comes from the
// check.
func TestSandboxCheckAtStart(t *testing.T) {
	if sandbox.ABI() < 6 || !sandbox.SeccompSupported() {
		t.Skip("the check needs Landlock 6 and a system call filter here")
	}
	defer sandbox.SetLastCheck(sandbox.LastCheck())
	h := newHome(t)
	file := sandbox.CheckFile(h.paths.Dir())
	kept := func() *sandbox.Report {
		t.Helper()
		r, err := sandbox.ReadCheck(file)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	s := h.startChecking()
	waitFor(t, s, "the first check", func(Snapshot) bool { return kept() != nil })
	first := kept()
	if first.Kernel != sandbox.Kernel() || first.Version != checkVersion() || first.Time.IsZero() || !first.Held() {
		t.Fatalf("the first check: kernel %q, version %q, time %v, held %v: %s", first.Kernel, first.Version, first.Time, first.Held(), first.Summary())
	}
	s.Close()

	// Same kernel, same mcptray: the check kept is the one in use.
	sandbox.SetLastCheck(nil)
	s = h.startChecking()
	s.Close() // waits for what Start began, a check among them
	if again := kept(); !again.Time.Equal(first.Time) {
		t.Errorf("checked again on the same kernel and mcptray (%v, then %v)", first.Time, again.Time)
	}
	if last := sandbox.LastCheck(); last == nil || !last.Time.Equal(first.Time) {
		t.Errorf("the kept check is not the last check: %+v", last)
	}

	// Another kernel: checked again.
	old := *first
	old.Kernel = "5.10.0-before"
	if err := sandbox.WriteCheck(file, old); err != nil {
		t.Fatal(err)
	}
	s = h.startChecking()
	waitFor(t, s, "the check on the new kernel", func(Snapshot) bool { return kept().Kernel == sandbox.Kernel() })
}

// TestSandboxCheckOnDemand: a check asked for (Settings' button, mcptray
// sandbox check) runs, is kept and recorded; a door that did not hold is
// what mcptray then says of every sandbox, and a check not yet run is
// said too.
func TestSandboxCheckOnDemand(t *testing.T) {
	if sandbox.ABI() < 6 || !sandbox.SeccompSupported() {
		t.Skip("the check needs Landlock 6 and a system call filter here")
	}
	defer sandbox.SetLastCheck(sandbox.LastCheck())
	h := newHome(t)
	self, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := h.start(false, withRecord(l), func(o *Options) {
		o.Launcher, o.SandboxProbe, o.Only = self, []string{self, sandbox.ProbeArg}, []string{}
	})

	if last, err := s.LastSandboxCheck(ctx); err != nil || last != nil {
		t.Fatalf("a check before any ran: %+v, %v", last, err)
	}
	if w := sandbox.Protection(sandbox.Policy{Read: []string{"/usr"}}).Words; sandbox.ABI() > 0 && !strings.Contains(w, "not yet checked") {
		t.Errorf("the words do not say that no check ran yet: %q", w)
	}
	r, err := s.CheckSandbox(DecidedBy(ctx, "the window (mcptray, pid 4242)"))
	if err != nil || !r.Held() {
		t.Fatalf("the check: %v\n%s", err, r.Summary())
	}
	if !r.OwnProxy {
		t.Error("the check's servers reached a stand-in, not mcptray's own proxy")
	}
	if last, _ := s.LastSandboxCheck(ctx); last == nil || !last.Time.Equal(r.Time) {
		t.Errorf("the last check is not the one that ran: %+v", last)
	}
	if w := sandbox.Protection(sandbox.Policy{Read: []string{"/usr"}}).Words; strings.Contains(w, "check") {
		t.Errorf("every door held, and the words still speak of the check: %q", w)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := l.Query(ctx, activity.Filter{Kind: activity.KindTrust})
	if err != nil || len(rows) != 1 {
		t.Fatalf("the record has %d rows (%v)", len(rows), err)
	}
	if w := rows[0].TrustWords(); !strings.Contains(w, "the window (mcptray, pid 4242) checked the sandbox on this computer") || !strings.HasSuffix(w, "every door held") {
		t.Errorf("the record says %q", w)
	}

	// A door that did not hold, as a later check could find it.
	open := r
	open.Kinds = append([]sandbox.KindResult{}, r.Kinds...)
	k := open.Kinds[2] // no proxy
	k.Doors = append([]sandbox.DoorResult{}, k.Doors...)
	k.Doors[0].State, k.Doors[0].Open = "open", "a server could read your SSH keys"
	open.Kinds[2] = k
	sandbox.SetLastCheck(&open)
	if w := sandbox.Protection(sandbox.Policy{Read: []string{"/usr"}}); w.Files || !strings.Contains(w.Words, "could read your SSH keys") {
		t.Errorf("the words do not say the door that did not hold: %+v", w)
	}
}

// TestSandboxCheckAfterFirstStarts: the check at a first start waits for
// the servers' first starts to settle, so its probes do not take the CPU
// those starts need. A server that takes a while to answer is connected
// before the check begins.
func TestSandboxCheckAfterFirstStarts(t *testing.T) {
	if sandbox.ABI() < 6 || !sandbox.SeccompSupported() {
		t.Skip("the check needs Landlock 6 and a system call filter here")
	}
	defer sandbox.SetLastCheck(sandbox.LastCheck())
	const delay = 1500 * time.Millisecond
	h := newHome(t)
	slow := testServer("slow")
	slow["args"] = []string{"-name", "slow", "-init-delay", delay.String()}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"slow": slow}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	begun := time.Now()
	// The server starts from the test's environment, not the login
	// shell's, which a slow profile can hold up for its 5 s bound, and
	// which is not this test's to read.
	s := h.start(true, func(o *Options) {
		o.SandboxProbe = []string{self, sandbox.ProbeArg}
		o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
	})
	file := sandbox.CheckFile(h.paths.Dir())
	// The snapshot follows the connections a moment behind, so wait for
	// both: the check kept, and slow's state as it was when it began.
	snap := waitFor(t, s, "the first check and slow connected", func(sn Snapshot) bool {
		r, _ := sandbox.ReadCheck(file)
		return r != nil && state(sn, "slow") != conn.Pending
	})
	r, _ := sandbox.ReadCheck(file)
	if r.Time.Before(begun.Add(delay)) {
		t.Errorf("the check began %v after mcptray's start, before the server could have answered (%v)", r.Time.Sub(begun), delay)
	}
	var since time.Time
	for _, sv := range snap.Servers {
		if sv.Name == "slow" {
			since = sv.Since
		}
	}
	if state(snap, "slow") != conn.Connected || r.Time.Before(since) {
		t.Errorf("the check began at %v, slow was %s from %v (%s)", r.Time.Sub(begun), state(snap, "slow"), since.Sub(begun), brief(snap))
	}
}
