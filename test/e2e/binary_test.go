package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinary builds mcptray and runs commands the way a person does, in a
// temporary home and under the C.UTF-8 locale of servers and CI, where Fyne
// would otherwise print locale errors on every start.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := Binary(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	runtime := runtimeDir(t)
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + runtime}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	if out, errOut, err := run("add", "files", "--", "npx", "-y", "server-filesystem"); err != nil || errOut != "" || !strings.Contains(out, "Added files") {
		t.Fatalf("add: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	out, errOut, err := run("list")
	if err != nil || errOut != "" || !strings.Contains(out, "npx -y server-filesystem") {
		t.Fatalf("list: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	// With no display, mcptray says so in a line, and how to run
	// without one: no panic, no stack trace.
	out, errOut, err = run()
	if err == nil || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "mcptray serve") ||
		strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
		t.Errorf("mcptray with no display: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	if _, errOut, err := run("no-such-command"); err == nil || !strings.Contains(errOut, "there is no command") {
		t.Fatalf("an unknown command must fail with a message: %v, %q", err, errOut)
	} else if code := err.(*exec.ExitError).ExitCode(); code != 2 {
		t.Errorf("an unknown command exits %d, want 2", code)
	}
}

// TestMakeRunNoDisplay: a person with no display who types make run gets
// words, not a panic.
func TestMakeRunNoDisplay(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "--no-print-directory", "run")
	cmd.Dir = filepath.Join("..", "..") // the Makefile's
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "mcptray needs a desktop") || !strings.Contains(string(out), "mcptray serve") ||
		strings.Contains(string(out), "panic") || strings.Contains(string(out), "goroutine ") {
		t.Errorf("make run with no display: %v\n%s", err, out)
	}
}
