package service

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/npmpin/npmtest"
)

// echoSays calls the echo tool of the server called name and returns its
// answer, which ends with the version that runs ("hi [1.0.0]"). It waits
// for the server as long as waitLong does: its first start resolves and
// installs its tree, beside other tests that install theirs.
func echoSays(t *testing.T, s *Service, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	waitLong(t, s, name+" connected", func(snap Snapshot) bool {
		sv, _ := snap.Find(name)
		if sv.State == conn.Failed {
			t.Fatalf("%s failed: %s\n%s", name, sv.Reason, sv.Stderr)
		}
		return sv.State == conn.Connected
	})
	res, err := s.Call(ctx, CallRequest{Server: name, Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("echo answered %+v", res.Content)
	}
	text, _ := res.Content[0].(mcp.TextContent)
	return text.Text
}

// TestPinnedPackageRunsWhatWasPinned: a server configured as npx -y
// echo-mcp, against a real registry (verdaccio) that the home's ~/.npmrc
// names, runs in its sandbox from the tree pinned at its first start: v1
// still after v2 is published and mcptray starts again. The check lists
// v2 with a review that names the line it added; v2 runs only once the
// person updates, and going back runs v1 again.
func TestPinnedPackageRunsWhatWasPinned(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	if testing.Short() {
		t.Skip("runs a registry")
	}
	r := npmtest.Start(t)
	r.Publish(t, npmtest.Server("1.0.0"))
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	h.writeFiles(map[string]string{".npmrc": "registry=" + r.URL + "\n"})
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}},
	}})
	base := append(os.Environ(), "HOME="+h.dir)
	start := func() *Service {
		t.Helper()
		s := h.start(true, func(o *Options) {
			o.Launcher = self
			o.Conn.BaseEnv = base
			o.Packages = &PackageOptions{}
		})
		return s
	}
	s := start()
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("the first start runs %q, want v1", got)
	}
	snap, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sv, _ := snap.Find("echo"); sv.Sandbox == nil || !sv.Sandbox.Protection.Files {
		t.Errorf("the pinned server runs outside its sandbox: %+v", sv.Sandbox)
	}
	// A hostile server cannot change the code it runs: its tree lies
	// where its sandbox does not let it write.
	res, err := s.Call(t.Context(), CallRequest{Server: "echo", Tool: "echo", Arguments: json.RawMessage(`{"text":"plant"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(mcp.TextContent); text.Text == "planted" {
		t.Fatalf("the server changed its own pinned code")
	}
	s.Close()

	r.Publish(t, npmtest.Server("2.0.0"))
	s = start()
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("after v2 was published it runs %q, want v1", got)
	}
	views, err := s.CheckPackages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Update == nil || views[0].Update.ToVersion != "2.0.0" {
		t.Fatalf("the check lists %+v, want v2", views)
	}
	rv := views[0].Update
	if len(rv.Destinations) != 1 || !strings.Contains(rv.Destinations[0].Text, "collect.example.net") {
		t.Fatalf("the review's new destinations: %+v", rv.Destinations)
	}
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("after the check, before the person updates, it runs %q", got)
	}
	if snap, err := s.Snapshot(t.Context()); err != nil || snap.Updates != 1 {
		t.Errorf("the snapshot counts %d updates (%v), want 1 for the tray", snap.Updates, err)
	}

	v, err := s.UpdatePackage(t.Context(), PackageUpdate{Name: "echo", Tree: rv.ToHash})
	if err != nil {
		t.Fatal(err)
	}
	if v.Facts.Version != "2.0.0" || v.Back != "1.0.0" {
		t.Errorf("after the update: %+v", v)
	}
	waitSays(t, s, "echo", "hi [2.0.0]")
	if snap, err := s.Snapshot(t.Context()); err != nil || snap.Updates != 0 {
		t.Errorf("after the update the snapshot counts %d updates (%v)", snap.Updates, err)
	}
	if _, err := s.UpdatePackage(t.Context(), PackageUpdate{Name: "echo", Back: true}); err != nil {
		t.Fatal(err)
	}
	waitSays(t, s, "echo", "hi [1.0.0]")

	// The person's npm cache and npx's were never used.
	if _, err := os.Stat(filepath.Join(h.dir, ".npm")); err == nil {
		t.Errorf("npm wrote in the person's ~/.npm")
	}
}

// waitSays waits until the server called name answers want: an update
// restarts it.
func waitSays(t *testing.T, s *Service, name, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := echoSays(t, s, name)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s answers %q, want %q", name, got, want)
		}
	}
}
