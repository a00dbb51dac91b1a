package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/npmpin/npmtest"
	"github.com/mcptray/mcptray/core/service"
)

// TestUpdatesShowTheAddedLine: the running mcptray runs npx -y echo-mcp
// pinned at v1, against a real registry the home's ~/.npmrc names. Once
// v2 is published, mcptray updates lists it and names the line it added
// before anything else; the server runs v1 until mcptray update, v2 after
// it, and v1 again after mcptray update --back.
func TestUpdatesShowTheAddedLine(t *testing.T) {
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
	h := newHome(t)
	h.write(".npmrc", "registry="+r.URL+"\n")
	h.must("add", "echo", "--", npx, "-y", "echo-mcp")

	so := service.Options{Paths: h.paths, Store: h.store, Follow: true, Packages: &service.PackageOptions{}}
	so.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
	inst, err := instance.Listen(instance.Options{Service: so})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	says := func(want string) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			code, out, errOut := h.run("call", "echo", "echo", `{"text":"hi"}`)
			if code == 0 && strings.Contains(out, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("echo says %q %q, want %q", out, errOut, want)
			}
			// Held while its tree is installed, or restarting after an
			// update: wait for its next change.
			waitChange(t, inst.Service)
		}
	}
	says("hi [1.0.0]")

	r.Publish(t, npmtest.Server("2.0.0"))
	out := h.must("updates")
	leak := strings.Index(out, "collect.example.net")
	files := strings.Index(out, "Files:")
	if !strings.Contains(out, "echo runs echo-mcp version 1.0.0") || !strings.Contains(out, "version 1.0.0 to 2.0.0") ||
		leak < 0 || files < 0 || leak > files || !strings.Contains(out, "a new address, collect.example.net") {
		t.Fatalf("mcptray updates says:\n%s", out)
	}
	says("hi [1.0.0]")

	var views []service.PackageView
	if err := json.Unmarshal([]byte(h.must("updates", "--json")), &views); err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Update == nil || len(views[0].Update.Destinations) != 1 {
		t.Fatalf("mcptray updates --json: %+v", views)
	}

	// Only the tree the person read runs: another is refused.
	h.fails(1, "no longer the one you read", "update", "echo", "--tree", strings.Repeat("0", 16))
	says("hi [1.0.0]")
	tree := views[0].Update.ToHash[:16]
	// Without --tree it shows the update and asks; a script is told to
	// name the tree it read.
	h.fails(2, "mcptray update echo --tree "+tree, "update", "echo")
	if code, out, errOut := h.runAtTerminal("n\n", "update", "echo"); code != 0 || !strings.Contains(out, "a new address, collect.example.net") ||
		!strings.Contains(out, "Run it? [y/N]") || !strings.Contains(out, "Nothing changed: echo still runs version 1.0.0") {
		t.Errorf("mcptray update at a terminal, answered no: exit %d %q %q", code, out, errOut)
	}
	says("hi [1.0.0]")
	if !strings.Contains(out, "mcptray update echo --tree "+tree+" runs it") {
		t.Errorf("mcptray updates does not say how to run that tree:\n%s", out)
	}
	if out := h.must("update", "echo", "--tree", tree); !strings.Contains(out, "echo now runs echo-mcp version 2.0.0") || !strings.Contains(out, "--back runs version 1.0.0 again") {
		t.Errorf("mcptray update says %q", out)
	}
	says("hi [2.0.0]")
	h.must("update", "echo", "--back")
	says("hi [1.0.0]")
	h.fails(1, "no update", "update", "echo")
}

// waitChange waits for s's next change notice, a minute at most.
func waitChange(t *testing.T, s *service.Service) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	notices, err := s.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-notices // the first comes at once
	select {
	case <-notices:
	case <-ctx.Done():
	}
}

// TestApproveBindsThePinnedTree: approving a project's npx server pins
// the tree its package resolves to then, and says so ("version 1.0.0,
// published …, 1 package in all"); a version published after is an
// update to review, not what the approval lets run.
func TestApproveBindsThePinnedTree(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	if testing.Short() {
		t.Skip("runs a registry")
	}
	r := npmtest.Start(t)
	r.Publish(t, npmtest.Server("1.0.0"))
	h := newHome(t)
	h.write(".npmrc", "registry="+r.URL+"\n")
	proj := h.write("proj/.mcp.json", `{"mcpServers": {"echo": {"command": "npx", "args": ["-y", "echo-mcp"]}}}`)
	h.must("folders", "add", strings.TrimSuffix(proj, "/.mcp.json"))
	out := h.must("approve", "echo")
	if !strings.Contains(out, "package:     echo-mcp version 1.0.0, published just now, 1 package in all; published by hand: nothing says where it was built\n               pinned by its content") {
		t.Fatalf("approve says:\n%s", out)
	}
	r.Publish(t, npmtest.Server("2.0.0"))
	if out := h.must("approve", "echo"); !strings.Contains(out, "echo-mcp version 1.0.0") {
		t.Errorf("approving again after v2 was published says:\n%s", out)
	}
	if out := h.must("updates"); !strings.Contains(out, "version 1.0.0 to 2.0.0") || !strings.Contains(out, "collect.example.net") {
		t.Errorf("updates says:\n%s", out)
	}
}
