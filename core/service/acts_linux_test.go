package service

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// These tests are servers that change what they may write, then wait for
// mcptray to act on it outside their sandbox (core/sandbox's package doc
// lists each place).

// TestRuntimeVersionLookSandboxed: a server may change the folder its
// node lies in (a folder on its command line), and replaced node with its
// own program. mcptray, asking node its version to describe the server,
// runs that program in the server's sandbox: it runs (it leaves a note in
// its own folder) and cannot write in the home.
func TestRuntimeVersionLookSandboxed(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	marker := filepath.Join(h.dir, "written-outside-the-sandbox")
	looked := filepath.Join(h.dir, "tools", "looked")
	node := filepath.Join(h.dir, "tools", "node")
	h.writeFiles(map[string]string{"tools/README": "the server's own folder"})
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then\n  echo looked > " + looked + "\n  echo pwned > " + marker + "\n  echo v20.0.0\nfi\n"
	if err := os.WriteFile(node, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"weather": map[string]any{"command": node, "args": []string{filepath.Join(h.dir, "tools")}}}})
	s := h.startSandboxed()
	box, err := s.SandboxOf(context.Background(), "weather")
	if err != nil {
		t.Fatal(err)
	}
	if !box.Protection.Files {
		t.Fatalf("no sandbox: %+v", box.Protection)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("mcptray ran the server's node outside its sandbox: it wrote in the home")
	}
	if _, err := os.Stat(looked); err != nil {
		t.Errorf("the look did not run the server's node in its sandbox: %v", err)
	}
}

// TestBundleRuntimeLookSandboxed: a bundle's preview asks the node on
// the PATH its version, and that node is a program that writes in the
// home (the folder it lies in could be one a server may change). It runs
// in a sandbox, which lets it say its version and write nothing.
func TestBundleRuntimeLookSandboxed(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	marker := filepath.Join(h.dir, "written-outside-the-sandbox")
	bin := filepath.Join(h.dir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho pwned > " + marker + "\necho v20.0.0\n"
	if err := os.WriteFile(filepath.Join(bin, "node"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.Launcher = self })
	res, err := s.InstallBundle(context.Background(), BundleRequest{File: zipBundle(t, bundletest.Testdata("node")), Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("mcptray ran the node on its PATH outside a sandbox: it wrote in the home")
	}
	if len(res.Needs) > 0 {
		t.Errorf("the node in its sandbox did not say its version: %q", res.Needs)
	}
}

// zipBundle packs the bundle folder src as a zip, as the bundle CLI does
// (this test needs no signature, and no Node to run the CLI).
func zipBundle(t *testing.T, src string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(src)+".mcpb")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	if err := w.AddFS(os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestActivitySecretsWaitOnNoPipe: the env file a server's entry names,
// in a folder the server may change, is a named pipe it made. Collecting
// the secrets to hide from the activity record does not wait on it.
func TestActivitySecretsWaitOnNoPipe(t *testing.T) {
	h := newHome(t)
	tools := filepath.Join(h.dir, "tools")
	if err := os.MkdirAll(tools, 0o700); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(tools, "server.env")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testServer("weather")
	srv["args"] = []string{tools}
	srv["envFile"] = pipe
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"weather": srv}})
	s := h.start(false)
	done := make(chan []string, 1)
	go func() { done <- s.ActivitySecrets(context.Background()) }()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatal("collecting the activity's secrets waits on the server's named pipe")
	}
}

// TestRemovedDataFolderFollowsNoLink: a server left links in its data
// folder to a file and a folder of the person's outside it. Removing the
// server removes its folder and the links, and nothing they lead to.
func TestRemovedDataFolderFollowsNoLink(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	h.writeFiles(map[string]string{"Documents/plan.txt": "the plan", "Documents/old/letter.txt": "a letter"})
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"notes": testServer("notes")}})
	s := h.startSandboxed()
	waitFor(t, s, "notes connected", func(snap Snapshot) bool { return state(snap, "notes") == conn.Connected })
	data := filepath.Join(h.paths.ServersDir(), sandbox.FolderName("notes"))
	for link, target := range map[string]string{
		filepath.Join(data, "plan.txt"):         filepath.Join(h.dir, "Documents", "plan.txt"),
		filepath.Join(data, "old"):              filepath.Join(h.dir, "Documents", "old"),
		filepath.Join(data, "tmp", "documents"): filepath.Join(h.dir, "Documents"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Remove(context.Background(), "notes"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(data); !os.IsNotExist(err) {
		t.Errorf("its data folder is still there: %v", err)
	}
	for _, f := range []string{"Documents/plan.txt", "Documents/old/letter.txt"} {
		if _, err := os.Stat(filepath.Join(h.dir, f)); err != nil {
			t.Errorf("removing the server's data folder removed ~/%s through its link: %v", f, err)
		}
	}
}

// TestGrantThroughPlantedLink: a server may change a folder on its
// command line, and made out in it a link to ~/.ssh. The person allows it
// to write that folder's out: the grant is out, as the person read it,
// not ~/.ssh, where the link leads.
func TestGrantThroughPlantedLink(t *testing.T) {
	h := newHome(t)
	h.writeFiles(map[string]string{".ssh/id_ed25519": "a key", "code/app/README": "the app"})
	app := filepath.Join(h.dir, "code", "app")
	if err := os.Symlink(filepath.Join(h.dir, ".ssh"), filepath.Join(app, "out")); err != nil {
		t.Fatal(err)
	}
	srv := testServer("weather")
	srv["args"] = []string{app}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"weather": srv}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.Launcher = self })
	ctx := context.Background()
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "weather", Allow: true, Write: "~/code/app/out"}); err != nil {
		t.Fatal(err)
	}
	box := waitSandbox(t, s, "weather", func(b Sandbox) bool { return len(b.Settings.Write) > 0 })
	if !slices.Equal(box.Settings.Write, []string{"~/code/app/out"}) {
		t.Errorf("the person allowed ~/code/app/out; kept: %q", box.Settings.Write)
	}
	for _, w := range box.Policy.Write {
		if strings.HasPrefix(w, filepath.Join(h.dir, ".ssh")) {
			t.Errorf("its policy writes %s", w)
		}
	}
	for _, g := range box.Grants {
		if strings.Contains(g.Words, ".ssh") {
			t.Errorf("its grant is said as %q", g.Words)
		}
	}
	// Taken back as it was given.
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "weather", Write: "~/code/app/out"}); err != nil {
		t.Errorf("taking it back: %v", err)
	}
}

// waitSandbox waits until the named server's sandbox, with its policy,
// is as ok says, and returns it.
func waitSandbox(t *testing.T, s *Service, name string, ok func(Sandbox) bool) Sandbox {
	t.Helper()
	var box Sandbox
	waitFor(t, s, name+"'s sandbox", func(Snapshot) bool {
		var err error
		box, err = s.SandboxOf(context.Background(), name)
		return err == nil && ok(box)
	})
	return box
}
