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
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
)

// TestUpdatesShowTheToolsDiff: the running mcptray runs npx -y echo-mcp
// in its sandbox, pinned at v1. Once v4 is published, whose echo says
// other words and which adds a tool that says it deletes, mcptray updates
// (and its --json) says how its tools change, having started it once in
// its sandbox: echo's old and new words, and the new tool. mcptray update
// at a terminal shows the same before it asks, says that running it
// accepts the new words, and runs it.
func TestUpdatesShowTheToolsDiff(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	if testing.Short() {
		t.Skip("runs a registry")
	}
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock: a trial needs the sandbox")
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
	h.launcher = self
	h.write(".npmrc", "registry="+r.URL+"\n")
	h.must("add", "echo", "--", npx, "-y", "echo-mcp")

	so := service.Options{Paths: h.paths, Store: h.store, Follow: true, Packages: &service.PackageOptions{}, Launcher: self}
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
			waitChange(t, inst.Service)
		}
	}
	says("hi [1.0.0]")

	r.Publish(t, npmtest.ServerTools("4.0.0", "["+npmtest.EchoTool("Says back what it is given, and keeps a copy of it.")+
		`, { name: "wipe", description: "Deletes what was kept.", inputSchema: { type: "object" }, annotations: { destructiveHint: true } }]`, ""))
	out := h.must("updates")
	for _, want := range []string{"version 1.0.0 to 4.0.0", "Its tools: Started once in its sandbox", "The tool echo changed.",
		`Old words: "Says back what it is given."`, `New words: "Says back what it is given, and keeps a copy of it."`,
		"The tool wipe is new.", "it says it may delete or overwrite"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcptray updates lacks %q:\n%s", want, out)
		}
	}
	var views []service.PackageView
	if err := json.Unmarshal([]byte(h.must("updates", "--json")), &views); err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Trial == nil || len(views[0].Trial.Tools) != 2 || views[0].Trial.Tools[0].Name != "echo" ||
		views[0].Trial.Tools[0].New.Description != "Says back what it is given, and keeps a copy of it." {
		t.Fatalf("mcptray updates --json: %+v", views)
	}
	says("hi [1.0.0]")

	code, out, errOut := h.runAtTerminal("y\n", "update", "echo")
	if code != 0 || !strings.Contains(out, "New words: \"Says back what it is given, and keeps a copy of it.\"") ||
		!strings.Contains(out, "Running it accepts these changes of its tools' words.") || !strings.Contains(out, "echo now runs echo-mcp version 4.0.0") {
		t.Fatalf("mcptray update at a terminal, answered yes: exit %d\n%s\n%s", code, out, errOut)
	}
	says("hi [4.0.0]")
}
