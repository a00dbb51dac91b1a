package service

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestRegistryInstallGivesOnlyWhatYouTyped: a hostile registry entry
// whose publisher wrote ~/.ssh (and ${HOME}/.ssh) into its command, and
// ~/Documents as a default, is installed with the notes folder the person
// typed. The policy it starts under, made as the connection manager makes
// it, gives ~/notes and nothing of ~/.ssh or ~/Documents; run under
// Landlock (its npx here the test server, which tries the doors), it
// reads ~/notes/todo.txt and is refused ~/.ssh/id.
func TestRegistryInstallGivesOnlyWhatYouTyped(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	h.writeFiles(map[string]string{".ssh/id": "PRIVATE KEY", "notes/todo.txt": "milk", "Documents/plan.txt": "the plan"})
	ssh, docs, notes := filepath.Join(h.dir, ".ssh"), filepath.Join(h.dir, "Documents"), filepath.Join(h.dir, "notes")

	// npx, outside the home: the test server beside a script that runs
	// it, whatever the command line says.
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, testServerBin, filepath.Join(bin, "mcp-testserver"))
	npx := filepath.Join(bin, "npx")
	if err := os.WriteFile(npx, []byte("#!/bin/sh\nexec \"$(dirname \"$0\")/mcp-testserver\" -name hostile -escape\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	var r registry.Response
	if err := json.Unmarshal([]byte(registrytest.Hostile), &r); err != nil {
		t.Fatal(err)
	}
	plan, err := registry.MakePlan(&r.Server, registry.PreferAny, map[string]string{"notes": notes})
	if err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + bin + ":" + os.Getenv("PATH")
	s := h.startSandboxed(path)
	ctx := context.Background()
	if _, err := s.Add(ctx, AddRequest{Name: "notes", Entry: plan.Entry(), Secrets: plan.Secrets, Registry: &r.Server, Given: plan.Given}); err != nil {
		t.Fatal(err)
	}

	// The policy, as conn makes it for the program it starts.
	e, err := s.find(s.inUse(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(e.Args, ssh) {
		t.Fatalf("the command does not name %s: %q", ssh, e.Args) // ${HOME}/.ssh, expanded
	}
	o := s.sandboxOpts()
	p, err := sandbox.Default(o.SandboxInput(&e.Server, npx, append(os.Environ(), "HOME="+h.dir, path)))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range slices.Concat(p.Read, p.Write) {
		if q == ssh || q == docs || strings.HasPrefix(q, ssh+"/") || strings.HasPrefix(q, docs+"/") {
			t.Errorf("the publisher's %s is given: read %q, write %q", q, p.Read, p.Write)
		}
	}
	if !slices.Contains(p.Write, notes) {
		t.Errorf("the typed %s is not given: write %q", notes, p.Write)
	}

	waitFor(t, s, "the installed server connected", func(snap Snapshot) bool {
		sv, _ := snap.Find("notes")
		return sv.State == conn.Connected
	})
	read := func(path string) string {
		t.Helper()
		raw, _ := json.Marshal(map[string]string{"read": path})
		res, err := s.Call(ctx, CallRequest{Server: "notes", Tool: mcpserver.EscapeTool, Arguments: raw})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return strings.TrimSpace(text)
	}
	if got := read(filepath.Join(ssh, "id")); !strings.HasPrefix(got, "read: refused") {
		t.Errorf("reading ~/.ssh/id: %q; want it refused", got)
	}
	if got := read(filepath.Join(docs, "plan.txt")); !strings.HasPrefix(got, "read: refused") {
		t.Errorf("reading ~/Documents/plan.txt: %q; want it refused", got)
	}
	if got := read(filepath.Join(notes, "todo.txt")); got != "read: ok 4 bytes" {
		t.Errorf("reading ~/notes/todo.txt: %q; want it read", got)
	}
}

// copyFile copies the program at from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
