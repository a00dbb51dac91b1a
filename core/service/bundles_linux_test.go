package service

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestBundleGetsItsFolder: a bundle that asks for a folder, packed by the
// official bundle CLI and installed, runs under Landlock with exactly that
// folder of the home: it reads a file there, and is refused one beside it;
// it may not change the folder (nor its own files) until installed again
// with the folder writable. Its declared tools, offered as declared at its
// first start, are offered.
func TestBundleGetsItsFolder(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	h.writeFiles(map[string]string{"notes/todo.txt": "milk", "Documents/plan.txt": "the plan"})
	file := bundletest.Pack(t, bundletest.Testdata("node"), nil)
	s := h.startSandboxed()
	ctx := context.Background()
	res, err := s.InstallBundle(ctx, BundleRequest{File: file, Values: map[string][]string{"folder": {"~/notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the bundle's server connected with its tools", func(snap Snapshot) bool {
		sv, _ := snap.Find(res.Name)
		return sv.State == conn.Connected && len(sv.Tools) == 3
	})
	call := func(tool string, args map[string]string) (string, bool) {
		raw, _ := json.Marshal(args)
		r, err := s.Call(ctx, CallRequest{Server: res.Name, Tool: tool, Arguments: raw})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		text := ""
		for _, c := range r.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return text, r.IsError
	}
	read := func(path string) (string, bool) { return call("read_file", map[string]string{"path": path}) }
	write := func(path string) (string, bool) {
		return call("write_file", map[string]string{"path": path, "text": "x"})
	}
	if snap, err := s.Snapshot(ctx); err != nil {
		t.Fatal(err)
	} else if b, _ := snap.Find(res.Name); b.Sandbox == nil || len(b.Sandbox.Withheld) > 0 {
		t.Errorf("a bundle whose command names only its own files and its folder setting: %+v", b.Sandbox)
	}
	if text, failed := read(filepath.Join(h.dir, "notes", "todo.txt")); failed || text != "milk" {
		t.Errorf("reading in its folder: %q (error %v)", text, failed)
	}
	if text, failed := read(filepath.Join(h.dir, "Documents", "plan.txt")); !failed || text != "EACCES" {
		t.Errorf("reading beside its folder: %q (error %v); want it refused", text, failed)
	}
	if text, failed := read(filepath.Join(h.paths.UserFile())); !failed {
		t.Errorf("reading mcptray's config: %q; want it refused", text)
	}
	for _, p := range []string{filepath.Join(h.dir, "notes", "new.txt"), filepath.Join(res.Cwd, "server", "index.js")} {
		if text, failed := write(p); !failed || text != "EACCES" {
			t.Errorf("writing %s: %q (error %v); want it refused", p, text, failed)
		}
	}

	// Installed again with the folder writable, it may change it.
	res, err = s.InstallBundle(ctx, BundleRequest{File: file, Values: map[string][]string{"folder": {"~/notes"}}, Write: []string{"folder"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "the bundle's server connected again", func(snap Snapshot) bool {
		sv, _ := snap.Find(res.Name)
		return sv.State == conn.Connected && len(sv.Tools) == 3 && sv.Sandbox != nil && len(sv.Sandbox.Settings.Write) == 1
	})
	if text, failed := write(filepath.Join(h.dir, "notes", "new.txt")); failed {
		t.Errorf("writing in its writable folder: %q", text)
	}
	if text, failed := write(filepath.Join(h.dir, "Documents", "new.txt")); !failed || text != "EACCES" {
		t.Errorf("writing beside its folder: %q (error %v); want it refused", text, failed)
	}
}

// TestBundleArgsGrantNothing: a hostile bundle whose command names
// folders of the home itself (its manifest's args, which the person did
// not choose: "${HOME}/Documents") gets none of them, neither to read nor
// to change: only what its settings name, which the install dialog shows.
func TestBundleArgsGrantNothing(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	h.writeFiles(map[string]string{"notes/todo.txt": "milk", "Documents/plan.txt": "the plan"})
	file := bundletest.Pack(t, bundletest.Testdata("node"), func(m map[string]any) {
		mc := m["server"].(map[string]any)["mcp_config"].(map[string]any)
		mc["args"] = append(mc["args"].([]any), "${HOME}/Documents", "--cache=${HOME}/Documents")
	})
	s := h.startSandboxed()
	ctx := context.Background()
	res, err := s.InstallBundle(ctx, BundleRequest{File: file, Values: map[string][]string{"folder": {"~/notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	waitFor(t, s, "the bundle's server connected with its tools", func(sn Snapshot) bool {
		sv, _ := sn.Find(res.Name)
		snap = sn
		return sv.State == conn.Connected && len(sv.Tools) == 3
	})
	for _, path := range []string{filepath.Join(h.dir, "Documents", "plan.txt"), filepath.Join(h.dir, "Documents", "new.txt")} {
		tool, args := "read_file", map[string]string{"path": path}
		if filepath.Base(path) == "new.txt" {
			tool, args = "write_file", map[string]string{"path": path, "text": "x"}
		}
		raw, _ := json.Marshal(args)
		r, err := s.Call(ctx, CallRequest{Server: res.Name, Tool: tool, Arguments: raw})
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsError {
			t.Errorf("%s %s through the folder its own command names: allowed", tool, path)
		}
	}
	// And what it may do, in words, names no such folder; the folder is
	// said as named in its command and not given, with what gives it.
	sv, _ := snap.Find(res.Name)
	if sv.Sandbox == nil {
		t.Fatal("no sandbox in the snapshot")
	}
	withheld := sv.Sandbox.Withheld
	box := *sv.Sandbox
	box.Withheld = nil
	if words, _ := json.Marshal(box); strings.Contains(string(words), "Documents") {
		t.Errorf("its sandbox names Documents: %s", words)
	}
	if len(withheld) != 1 || withheld[0].What != "~/Documents" || withheld[0].Allow != "--read ~/Documents" ||
		withheld[0].Change != (SandboxChange{Server: res.Name, Allow: true, Read: "~/Documents"}) {
		t.Errorf("withheld: %+v", withheld)
	}
}
