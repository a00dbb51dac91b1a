package transport

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdioChildDiesWithMcptray: when the process that started a stdio
// server is killed with SIGKILL, leaving it no chance to stop anything, the
// server is killed too. The server here sleeps and ignores its stdin, so
// only the kernel can have ended it.
func TestStdioChildDiesWithMcptray(t *testing.T) {
	t.Parallel()
	parent, pid := startParent(t)
	if processGone(pid) {
		t.Fatalf("the server %d is gone before its parent is killed", pid)
	}

	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	waitProcessesGone(t, 10*time.Second, pid)
}

// startParent starts this test binary as the "parent" child, which starts
// a stdio server (in a sandbox, with env's sandboxedVar) and prints its
// pid; it returns the parent and that pid, and kills both at the test's
// end.
func startParent(t *testing.T, env ...string) (*exec.Cmd, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe)
	parent.Env = append(append(os.Environ(), stdioChildVar+"=parent"), env...)
	var stderr strings.Builder
	parent.Stderr = &stderr
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parent.Process.Kill(); parent.Wait() })

	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	var pid int
	select {
	case l := <-line:
		if pid, err = strconv.Atoi(strings.TrimSpace(l)); err != nil || pid <= 0 {
			t.Fatalf("the parent printed %q, not a pid (stderr: %s)", l, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the parent printed no pid within 10s (stderr: %s)", stderr.String())
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return parent, pid
}
