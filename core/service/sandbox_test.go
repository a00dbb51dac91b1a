package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestSandboxRefusalAllowed: a server refused a file in its sandbox shows
// the refusal with the flag that allows it; allowed, it restarts and reads
// the file; the words say what it may do at each step.
func TestSandboxRefusalAllowed(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	h.writeFiles(map[string]string{"Documents/plan.txt": "the plan"})
	secret := filepath.Join(h.dir, "Documents", "plan.txt")
	srv := testServer("reader")
	srv["args"] = []string{"-name", "reader", "-read-home-file", "Documents/plan.txt"}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"reader": srv}})
	s := h.startSandboxed()
	snap := waitFor(t, s, "a refusal", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.State == conn.Connected && sv.Sandbox != nil && len(sv.Sandbox.Refusals) > 0
	})
	sv, _ := snap.Find("reader")
	box := sv.Sandbox
	if r := box.Refusals[0]; r.Path != secret || r.Allow != "--read ~/Documents/plan.txt" || r.Label != "Let it read ~/Documents/plan.txt" ||
		r.Change != (SandboxChange{Server: "reader", Allow: true, Read: "~/Documents/plan.txt"}) {
		t.Errorf("refusal %+v", r)
	}
	if !box.Protection.Files || !strings.Contains(box.Words, "Nothing else in your home") {
		t.Errorf("protection %+v, words %q", box.Protection, box.Words)
	}

	ctx := context.Background()
	// The refusal's change, sent back as it came, as the window does.
	if err := s.ChangeSandbox(ctx, box.Refusals[0].Change); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "the restart with the file allowed", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.State == conn.Connected && sv.Sandbox != nil && slices.Contains(sv.Sandbox.Settings.Read, "~/Documents/plan.txt") && len(sv.Sandbox.Refusals) == 0
	})
	sv, _ = snap.Find("reader")
	g := sv.Sandbox.Grants[0]
	if !strings.Contains(sv.Sandbox.Words, "read ~/Documents/plan.txt") || g.Deny != "--read ~/Documents/plan.txt" ||
		g.TakeBack == nil || *g.TakeBack != (SandboxChange{Server: "reader", Read: "~/Documents/plan.txt"}) {
		t.Errorf("words %q, grants %+v", sv.Sandbox.Words, sv.Sandbox.Grants)
	}

	if err := s.SetSandbox(ctx, "reader", false); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "the sandbox off", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.Sandbox != nil && sv.Sandbox.Off
	})
	sv, _ = snap.Find("reader")
	if sv.Sandbox.Protection.Files || !strings.Contains(sv.Sandbox.Words, "without a sandbox") {
		t.Errorf("off: %+v %q", sv.Sandbox.Protection, sv.Sandbox.Words)
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "reader", Allow: true, Read: "Documents"}); err == nil {
		t.Error("a relative path was taken")
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "reader", Allow: true, Read: "/a", Port: 80}); err == nil {
		t.Error("two things at once were taken")
	}
}

// TestDataFolderGoesWithServer: a sandboxed server's data folder is
// removed once the server is removed (by mcptray remove, or from its file)
// and its process has stopped; renamed with the same command, the server
// keeps it; added again under a removed name, it starts with an empty one;
// its file gone (a project's on another git branch), it keeps it.
func TestDataFolderGoesWithServer(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	notes, scratch := testServer("notes"), testServer("scratch")
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"notes": notes, "scratch": scratch}})
	s := h.startSandboxed()
	waitFor(t, s, "both connected", func(snap Snapshot) bool {
		return state(snap, "notes") == conn.Connected && state(snap, "scratch") == conn.Connected
	})
	folder := func(name string) string { return filepath.Join(h.paths.ServersDir(), sandbox.FolderName(name)) }
	memo := filepath.Join(folder("notes"), "memo.txt")
	if err := os.WriteFile(memo, []byte("what notes keeps"), 0o600); err != nil {
		t.Fatalf("the data folder was not made: %v", err)
	}
	if _, err := os.Stat(folder("scratch")); err != nil {
		t.Fatalf("scratch's data folder: %v", err)
	}

	// The file edited: notes renamed kb with the same command, scratch
	// taken out.
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"kb": notes}})
	waitFor(t, s, "kb connected, notes and scratch gone", func(snap Snapshot) bool {
		_, n := snap.Find("notes")
		_, sc := snap.Find("scratch")
		return state(snap, "kb") == conn.Connected && !n && !sc
	})
	if b, err := os.ReadFile(filepath.Join(folder("kb"), "memo.txt")); string(b) != "what notes keeps" {
		t.Errorf("renamed, the server lost its data: %q, %v", b, err)
	}
	if _, err := os.Stat(folder("notes")); !os.IsNotExist(err) {
		t.Errorf("the old name's folder is still there: %v", err)
	}
	waitDataRemoval(t, s, "scratch")
	if _, err := os.Stat(folder("scratch")); !os.IsNotExist(err) {
		t.Errorf("scratch, taken out of the file, left its data folder: %v", err)
	}

	// mcptray remove: the folder is gone when it returns.
	ctx := context.Background()
	if _, err := s.Remove(ctx, "kb"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(folder("kb")); !os.IsNotExist(err) {
		t.Errorf("removed, kb left its data folder: %v", err)
	}
	if _, err := s.Add(ctx, AddRequest{Name: "kb", Entry: json.RawMessage(`{"command":` + strconv.Quote(testServerBin) + `,"args":["-name","kb"]}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "kb added again", func(snap Snapshot) bool { return state(snap, "kb") == conn.Connected })
	if _, err := os.Stat(filepath.Join(folder("kb"), "memo.txt")); !os.IsNotExist(err) {
		t.Errorf("added again, kb found the removed one's data: %v", err)
	}

	if err := os.Remove(h.paths.UserFile()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "kb gone with its file", func(snap Snapshot) bool { _, ok := snap.Find("kb"); return !ok })
	waitDataRemoval(t, s, "kb")
	if _, err := os.Stat(folder("kb")); err != nil {
		t.Errorf("its file gone, kb lost its data folder: %v", err)
	}
}

// waitDataRemoval waits until the config in use is the one last loaded
// and the removal of name's data folder it set off, if any, is done.
func waitDataRemoval(t *testing.T, s *Service, name string) {
	t.Helper()
	s.useMu.Lock() // the last config is in use, and any removal under way
	s.useMu.Unlock()
	done := s.data.Removing(name)
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%s's data folder was not removed after it stopped", name)
	}
}

// TestGrantsTakenBackAsTheyCame: every grant the person gave carries the
// change that takes it back, which a front end sends as it came (no words
// parsed back); what the server's own config gives carries none.
func TestGrantsTakenBackAsTheyCame(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx := t.Context()
	entry, _ := json.Marshal(testServer("kb"))
	if _, err := s.Add(ctx, AddRequest{Name: "kb", Entry: entry}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []SandboxChange{{Read: "~/My Documents"}, {Write: "~/out"}, {Host: "api.example.com"}, {Port: 5432}, {Sockets: true}} {
		c.Server, c.Allow = "kb", true
		if err := s.ChangeSandbox(ctx, c); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	box, err := s.SandboxOf(ctx, "kb")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range box.Grants {
		if g.Deny == "" {
			if g.TakeBack != nil {
				t.Errorf("%q, which its config gives, can be taken back with %+v", g.Words, *g.TakeBack)
			}
			continue
		}
		if g.TakeBack == nil || g.TakeBack.Allow || g.TakeBack.Server != "kb" {
			t.Fatalf("%q (%s) carries %+v", g.Words, g.Deny, g.TakeBack)
		}
		if err := s.ChangeSandbox(ctx, *g.TakeBack); err != nil {
			t.Fatalf("%+v: %v", *g.TakeBack, err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d grants could be taken back, want 5: %+v", n, box.Grants)
	}
	if box, err = s.SandboxOf(ctx, "kb"); err != nil || !box.Settings.Empty() {
		t.Errorf("after taking every grant back: %+v (%v)", box.Settings, err)
	}
}
