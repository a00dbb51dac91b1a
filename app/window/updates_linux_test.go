package window

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/npmpin/npmtest"
	"github.com/mcptray/mcptray/core/service"
)

// pinning pins the npm packages of npx servers, against the registry that
// the home's ~/.npmrc names.
func pinning(reg *npmtest.Registry) realOption {
	return func(r *real, o *service.Options) {
		if err := os.WriteFile(filepath.Join(r.dir, ".npmrc"), []byte("registry="+reg.URL+"\n"), 0o600); err != nil {
			r.t.Fatal(err)
		}
		sandboxed(r, o)
		o.Packages = &service.PackageOptions{}
	}
}

// echoSays calls echo-mcp's tool through the running mcptray and returns
// its answer, which ends with the version that runs ("hi [1.0.0]").
func (r *real) echoSays() string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	res, err := r.cl.Call(ctx, service.CallRequest{Server: "echo", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || len(res.Content) != 1 {
		return ""
	}
	text, _ := res.Content[0].(mcp.TextContent)
	return text.Text
}

// waitSays waits until echo answers want: an update restarts it.
func (r *real) waitSays(want string) {
	r.t.Helper()
	deadline := time.Now().Add(realDeadline)
	for {
		r.until("echo to connect", func() bool { return r.shows("echo", service.Connected) })
		got := r.echoSays()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("echo answers %q, want %q", got, want)
		}
	}
}

// TestRealUpdates: the Updates view shows what a pinned server runs and
// the update the check found, the added line that sends data to a new
// address first; the update runs only once the person confirms, and only
// the one the person read: an update a check found meanwhile does not run
// in its place. Go back runs the earlier version again.
func TestRealUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a registry")
	}
	reg := npmtest.Start(t)
	reg.Publish(t, npmtest.Server("1.0.0"))
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	r := newReal(t, map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}},
	}}, pinning(reg))
	r.waitSays("hi [1.0.0]")

	reg.Publish(t, npmtest.Server("2.0.0"))
	r.tap(r.v.updatesBtn)
	r.until("the Updates view", func() bool { return r.v.updates != nil && len(r.v.updates.views) == 1 })
	u := r.v.updates
	r.tap(u.check)
	r.until("v2 found", func() bool { return u.update["echo"] != nil })
	r.until("the count on the button", func() bool { return r.v.updatesBtn.Text == "Updates (1)" })
	r.v.do(func() {
		first := u.first["echo"].Text
		if !strings.HasPrefix(first, "Update: echo-mcp 1.0.0 to 2.0.0.\n1 added line sends data somewhere new") ||
			!strings.Contains(first, "collect.example.net") {
			t.Errorf("the review's first words:\n%s", first)
		}
		if u.first["echo"].Importance != widget.DangerImportance {
			t.Errorf("the new destination is not shown as a danger")
		}
	})
	screenshot(t, r, "updates")
	if got := r.echoSays(); got != "hi [1.0.0]" {
		t.Fatalf("before the person updates, echo runs %q", got)
	}

	// The person reads v2's review and clicks Update…; before they
	// confirm, a check (the daily one) finds v3 and the open view shows
	// it. The confirmation runs v2, the one it described, or nothing:
	// never v3.
	r.tap(u.update["echo"])
	if r.v.confirm == nil {
		t.Fatal("Update… asked nothing")
	}
	reg.Publish(t, npmtest.Helper("1.0.0"))
	reg.Publish(t, npmtest.Server("3.0.0"))
	if _, err := r.svc.CheckPackages(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.until("the open view to show v3", func() bool {
		return len(u.views) == 1 && u.views[0].Update != nil && u.views[0].Update.ToVersion == "3.0.0"
	})
	errs := len(r.v.errs)
	if b := findButton(r.win.Canvas().Overlays().Top(), "Update"); b == nil {
		t.Fatal("the confirmation has no Update button")
	} else {
		r.tap(b)
	}
	r.until("the update to end", func() bool { return len(r.v.errs) > errs || r.v.snap.Updates == 0 })
	if got := r.echoSays(); got != "hi [1.0.0]" && got != "hi [2.0.0]" {
		t.Fatalf("the person read v2's review, and echo runs %q", got)
	}
	r.waitSays("hi [1.0.0]")

	// Read again, v3 is what runs.
	r.tap(u.check)
	r.until("v3 found", func() bool {
		return len(u.views) == 1 && u.views[0].Update != nil && u.views[0].Update.ToVersion == "3.0.0" && u.update["echo"] != nil
	})
	r.tap(u.update["echo"])
	r.tap(findButton(r.win.Canvas().Overlays().Top(), "Update"))
	r.waitSays("hi [3.0.0]")
	r.until("Go back", func() bool { return u.back["echo"] != nil && u.update["echo"] == nil })
	r.tap(u.back["echo"])
	r.waitSays("hi [1.0.0]")
}

// TestRealLookAtPinnedPackage: the approval dialog's look at a project's
// npx server says which version it pinned, when it was published and how
// many packages, as mcptray approve --look does.
func TestRealLookAtPinnedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a registry")
	}
	reg := npmtest.Start(t)
	reg.Publish(t, npmtest.Server("1.0.0"))
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	r := newReal(t, nil, following, pinning(reg))
	proj := filepath.Join(r.dir, "proj")
	r.write(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}},
	}})
	r.v.do(func() { r.v.addFolder(proj) })
	r.until("echo to wait for approval", func() bool { return r.shows("echo", service.AwaitingApproval) })
	r.v.do(func() { r.v.focus("echo") })
	r.tap(r.v.detail.fix)
	r.tap(r.v.lookButton)
	var text string
	r.until("the look in the dialog", func() bool {
		text = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n")
		return strings.Contains(text, "Its tools") || strings.Contains(text, "could not look")
	})
	if !strings.Contains(text, "It runs echo-mcp version 1.0.0, published just now, 1 package in all; published by hand: nothing says where it was built.\nPinned by its content") {
		t.Errorf("the look does not say what it pinned:\n%s", text)
	}
}
