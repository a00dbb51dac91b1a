package transport

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/sandbox"
)

// TestStdioSandboxedKeepsProcessHandling: a server started through the
// sandbox's launcher runs under it (its init), in its own process group,
// under no-new-privileges; Close ends it and what it started.
func TestStdioSandboxedKeepsProcessHandling(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	ctx := stdioTestCtx(t)
	exe, _ := os.Executable()
	s := newStdioChild(t, "mcp", func(c *StdioConfig) { c.Grace = 500 * time.Millisecond; c.Sandbox = testSandbox(exe, false) })
	c := connectStdio(t, ctx, s)
	pid := s.Pid()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil || !strings.Contains(string(status), "NoNewPrivs:\t1") {
		t.Fatalf("the server %d is not in its sandbox (%v):\n%s", pid, err, status)
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Fatalf("the child's process group is %d (%v), want its own, %d", pgid, err, pid)
	}
	text, err := callTool(ctx, c, "spawn", nil)
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	grandchild, _ := strconv.Atoi(text)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitProcessesGone(t, 5*time.Second, pid, grandchild)
}

// TestStdioSandboxedDiesWithMcptray: the parent-death signal set for the
// launcher holds for the server under it, with and without namespaces.
func TestStdioSandboxedDiesWithMcptray(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	exe, _ := os.Executable()
	modes := []string{"1"}
	if sandbox.Isolation(exe) {
		modes = append(modes, "namespaces")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			parent, pid := startParent(t, sandboxedVar+"="+mode)
			// The launcher may not have forked the server yet: wait for it.
			var server int
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				// In namespaces the launcher's child is their init,
				// and the server the init's child: the last of the line.
				server = 0
				for c := childOf(pid); c > 0; c = childOf(c) {
					server = c
				}
				if server > 0 {
					status, _ := os.ReadFile("/proc/" + strconv.Itoa(server) + "/status")
					if strings.Contains(string(status), "NoNewPrivs:\t1") {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("the launcher %d has no sandboxed server under it", pid)
				}
			}
			t.Cleanup(func() { syscall.Kill(server, syscall.SIGKILL) })
			if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			parent.Wait()
			waitProcessesGone(t, 10*time.Second, pid, server)
		})
	}
}

// childOf is a child of pid, or 0: the launcher's and the init's one child.
func childOf(pid int) int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.Atoi(f[0])
			return n
		}
	}
	return 0
}
