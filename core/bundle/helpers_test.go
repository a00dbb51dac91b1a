package bundle

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpb returns the official bundle CLI that make deps installs into
// test/peers, with its own Node first on PATH. A test skips only where
// npm is not there to install it.
func mcpb(t *testing.T) (bin string, env []string) {
	t.Helper()
	peers, err := filepath.Abs(filepath.Join("..", "..", "test", "peers", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(peers, "mcpb")
	if _, err := os.Stat(bin); err != nil {
		if _, npmErr := exec.LookPath("npm"); npmErr != nil {
			t.Skip("npm is not installed, so the official bundle CLI (mcpb) cannot be had; install Node.js with npm and run make deps")
		}
		t.Fatalf("the official bundle CLI is not in test/peers (%v); run make deps", err)
	}
	return bin, append(os.Environ(), "PATH="+peers+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// runMcpb runs mcpb with args in dir, and fails the test when it fails.
func runMcpb(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, env := mcpb(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// pack copies testdata/name into a fresh folder and packs it with mcpb,
// returning the bundle's path.
func pack(t *testing.T, name string) string {
	t.Helper()
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), name+".mcpb")
	runMcpb(t, src, "pack", src, out)
	return out
}

// handshake starts run's server, initializes it and lists its tools, as
// an AI app would, and returns the server's instructions and tool names.
func handshake(t *testing.T, run Run) (instructions string, tools []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, run.Command, run.Args...)
	cmd.Dir = run.Cwd
	cmd.Env = os.Environ()
	for k, v := range run.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	call := func(id int, method string, params any) json.RawMessage {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(req, '\n')); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("%s: the server said nothing (%v); its error output: %s", method, errors.Join(lines.Err(), ctx.Err()), stderr.String())
		}
		var resp struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(lines.Bytes(), &resp); err != nil || resp.Error != nil {
			t.Fatalf("%s: %s (%v)", method, lines.Text(), err)
		}
		return resp.Result
	}
	var init struct{ Instructions string }
	_ = json.Unmarshal(call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}}), &init)
	var list struct{ Tools []struct{ Name string } }
	_ = json.Unmarshal(call(2, "tools/list", map[string]any{}), &list)
	for _, tl := range list.Tools {
		tools = append(tools, tl.Name)
	}
	return init.Instructions, tools
}

// refusedWith fails the test unless err refuses a bundle in words that
// hold want.
func refusedWith(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the bundle was opened; want it refused with %q", want)
	}
	if !IsRefused(err) {
		t.Fatalf("err = %v (%T); want a refusal (*Error) with %q", err, err, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %q; want it to say %q", err, want)
	}
}
