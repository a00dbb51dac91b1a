package bundle

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

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
