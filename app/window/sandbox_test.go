package window

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
)

// sandboxed runs the service's local servers in the sandbox, with this
// test binary as the launcher, in the temporary home.
func sandboxed(r *real, o *service.Options) {
	self, err := os.Executable()
	if err != nil {
		r.t.Fatal(err)
	}
	o.Launcher = self
	o.Conn.BaseEnv = append(os.Environ(), "HOME="+r.dir)
}

// TestRealSandboxApprovalAndDetail: the approval dialog says what a
// project's server may do, with what its file asks for; the detail says it
// too, with no Take back for what the file asks for but how to change it
// there, and "Run without a sandbox…" warns before turning it off.
func TestRealSandboxApprovalAndDetail(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	r := newReal(t, nil, following, sandboxed)
	proj := filepath.Join(r.dir, "proj")
	srv := testServer("theirs")
	srv["mcptray"] = map[string]any{"sandbox": map[string]any{"read": []string{"~/Documents"}, "hosts": []string{"api.example.com"}}}
	r.write(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"theirs": srv}})
	r.v.do(func() { r.v.addFolder(proj) })
	r.until("theirs to wait for approval", func() bool { return r.shows("theirs", service.AwaitingApproval) })
	r.v.do(func() { r.v.focus("theirs") })
	r.tap(r.v.detail.fix)
	var dialogText string
	r.v.do(func() { dialogText = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n") })
	for _, want := range []string{"Its file asks for more", "read and change this project folder (~/proj)", "read ~/Documents", "Nothing else in your home.", "Environment: ", "PATH"} {
		if !strings.Contains(dialogText, want) {
			t.Errorf("the approval dialog lacks %q:\n%s", want, dialogText)
		}
	}
	r.tap(r.v.approveButton)
	r.until("theirs to connect", func() bool { return r.shows("theirs", service.Connected) })
	var detailText string
	r.v.do(func() { detailText = strings.Join(labels(r.v.detail.body), "\n") })
	level := "Files and network protected" // mcptray's egress proxy runs
	if sandbox.ABI() < 4 {
		level = "Files protected, network not"
	}
	for _, want := range []string{"What it may do", "read ~/Documents", level, "[Run without a sandbox…]",
		"Read ~/Documents: its entry asks for it.", "Reach api.example.com: its entry asks for it.",
		"To take back what its entry asks for, edit the \"mcptray\": {\"sandbox\": …} part of theirs's entry in its project's file (~/proj/.mcp.json), then approve theirs again"} {
		if !strings.Contains(detailText, want) {
			t.Errorf("the detail lacks %q:\n%s", want, detailText)
		}
	}
	if strings.Contains(detailText, "[Take back]") {
		t.Errorf("the detail offers to take back what the project's file asks for, which would change nothing:\n%s", detailText)
	}

	r.tap(r.v.detail.sandboxOff)
	var warning string
	r.v.do(func() { warning = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n") })
	if !strings.Contains(warning, "every file you can") {
		t.Errorf("no warning before running without a sandbox:\n%s", warning)
	}
	b := findButton(r.win.Canvas().Overlays().Top(), "Run without a sandbox")
	if b == nil {
		t.Fatal("the warning has no Run without a sandbox button")
	}
	r.tap(b)
	r.until("theirs to run without a sandbox", func() bool {
		sv, _ := r.v.snap.Find("theirs")
		return sv.Sandbox != nil && sv.Sandbox.Off && sv.State == service.Connected
	})
	r.v.do(func() { detailText = strings.Join(labels(r.v.detail.body), "\n") })
	if !strings.Contains(detailText, "[Run in its sandbox]") || !strings.Contains(detailText, "without a sandbox") {
		t.Errorf("off, the detail says:\n%s", detailText)
	}
}

// TestRealSandboxRefusal: a file refused to a server shows in its detail
// with a button that allows it; tapped, the server restarts and reads it.
func TestRealSandboxRefusal(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	srv := testServer("reader")
	srv["args"] = []string{"-name", "reader", "-read-home-file", "notes/today.md"}
	notes := func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, "notes"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.dir, "notes", "today.md"), []byte("hello"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"reader": srv}}, following, sandboxed, notes)
	r.until("the refusal", func() bool {
		sv, _ := r.v.snap.Find("reader")
		return sv.Sandbox != nil && len(sv.Sandbox.Refusals) > 0
	})
	r.v.do(func() { r.v.focus("reader") })
	// The detail is read on the UI goroutine, once it shows the refusal:
	// read from the test's, it raced the detail's making.
	var b *widget.Button
	r.until("a button that allows the refused file", func() bool {
		b = findButton(r.v.detail.body, "Let it read ~/notes/today.md…")
		return b != nil
	})
	r.tap(b)
	r.until("the file allowed and read", func() bool {
		sv, _ := r.v.snap.Find("reader")
		return sv.Sandbox != nil && slices.Contains(sv.Sandbox.Settings.Read, "~/notes/today.md") && len(sv.Sandbox.Refusals) == 0 && sv.State == service.Connected
	})
}

// TestRealSandboxWithheld: a folder named in the command of a server
// whose command its publisher wrote (its settings say its command line
// grants nothing) shows in its detail as not given, with a button that
// gives it; tapped, the server restarts with it.
func TestRealSandboxWithheld(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	srv := testServer("reader")
	notes := func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, "notes"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	srv["args"] = []string{"-name", "reader", "--", "~/notes"}
	r := newReal(t, map[string]any{
		"mcpServers": map[string]any{"reader": srv},
		"sandbox":    map[string]any{"reader": map[string]any{"argsGrantNothing": true}},
	}, following, sandboxed, notes)
	r.until("the withheld folder", func() bool {
		sv, _ := r.v.snap.Find("reader")
		return sv.Sandbox != nil && len(sv.Sandbox.Withheld) == 1 && sv.State == service.Connected
	})
	r.v.do(func() { r.v.focus("reader") })
	var text string
	r.v.do(func() { text = strings.Join(labels(r.v.detail.body), "\n") })
	if !strings.Contains(text, "Named in its command, and not given") || strings.Contains(text, "read and change ~/notes, named in its command") {
		t.Errorf("the detail says:\n%s", text)
	}
	b := findButton(r.v.detail.body, "Let it read ~/notes…")
	if b == nil {
		t.Fatalf("no button gives the folder:\n%s", text)
	}
	r.tap(b)
	r.until("the folder given", func() bool {
		sv, _ := r.v.snap.Find("reader")
		return sv.Sandbox != nil && slices.Contains(sv.Sandbox.Settings.Read, "~/notes") && len(sv.Sandbox.Withheld) == 0 && sv.State == service.Connected
	})
}
