//go:build unix

package transport

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// processGone reports whether pid has ended for good. A zombie that is our
// child means we failed to reap it, so it is not gone; a zombie of another
// parent is dead, waiting for that parent (see isForeignZombie).
func processGone(pid int) bool {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH) || isForeignZombie(pid)
}

// waitProcessesGone polls (processes we did not start give no event) until every pid
// is gone, failing the test after d.
func waitProcessesGone(t *testing.T, d time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still exists %s later", pid, d)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestStdioProcessGroupEndsOnClose(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "mcp", func(c *StdioConfig) { c.Grace = 500 * time.Millisecond })
	c := connectStdio(t, ctx, s)

	pid := s.Pid()
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Fatalf("the child's process group is %d (%v), want its own, %d", pgid, err, pid)
	}
	text, err := callTool(ctx, c, "spawn", nil)
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	grandchild, _ := strconv.Atoi(text)
	if pgid, _ := syscall.Getpgid(grandchild); pgid != pid {
		t.Fatalf("the grandchild is in group %d, want %d", pgid, pid)
	}

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close has reaped the child: no zombie, no process.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the child %d is still there after Close (kill 0: %v)", pid, err)
	}
	waitProcessesGone(t, 5*time.Second, grandchild)
}

func TestStdioContextEndKillsTheGroup(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	life, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newStdioChild(t, "mcp", func(c *StdioConfig) { c.Grace = 500 * time.Millisecond })
	c := connectStdio(t, life, s)
	text, err := callTool(ctx, c, "spawn", nil)
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	grandchild, _ := strconv.Atoi(text)
	pid := s.Pid()

	cancel()
	waitStdioDone(t, s, 10*time.Second)
	var ee *ExitError
	if err := s.ExitErr(); !errors.As(err, &ee) || !ee.Stopped {
		t.Errorf("ExitErr = %v, want a stop", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the child %d is still there (kill 0: %v)", pid, err)
	}
	waitProcessesGone(t, 5*time.Second, grandchild)
}

func TestStdioSIGTERMIgnoredMeansSIGKILLAfterGrace(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	const grace = 300 * time.Millisecond
	s := newStdioChild(t, "ignoreterm", func(c *StdioConfig) { c.Grace = grace })
	connectStdio(t, ctx, s) // the child ignores SIGTERM before it answers

	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	took := time.Since(start)
	// stdin closed: ignored for min(stdinGrace, Grace); SIGTERM: ignored for Grace.
	if took < 2*grace {
		t.Errorf("Close took %s; the child should have had %s after SIGTERM", took, grace)
	}
	var ee *ExitError
	if err := s.ExitErr(); !errors.As(err, &ee) || ee.Signal != int(syscall.SIGKILL) {
		t.Fatalf("ExitErr = %v, want killed by SIGKILL", err)
	}
	if got := s.ExitErr().Error(); got != "stopped by mcptray (killed by signal 9 (SIGKILL))" {
		t.Errorf("ExitErr says %q", got)
	}
}

func TestStdioLooksUpTheCommandOnTheChildsPATH(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A symlink, not a script: writing an executable while parallel tests
	// fork can make exec fail with ETXTBSY.
	dir := t.TempDir()
	const name = "mcptray-echo-server"
	if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(name); err == nil {
		t.Fatalf("%s is on this process's PATH; the test means it not to be", name)
	}
	s := newStdioChild(t, "mcp", func(c *StdioConfig) {
		c.Command = name
		c.BaseEnv = append(os.Environ(), "PATH=/usr/bin:"+dir+":/bin")
	})
	c := connectStdio(t, ctx, s)
	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "found"}); err != nil || got != "found" {
		t.Fatalf("echo = %q, %v", got, err)
	}
}

func TestStdioDirDefaultsToHome(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	s := newStdioChild(t, "mcp", nil)
	if err := s.Start(stdioTestCtx(t)); err != nil {
		t.Fatal(err)
	}
	if s.cmd.Dir != home || envValue(s.cmd.Env, "PWD") != home {
		t.Errorf("Dir = %q, PWD = %q; want %q", s.cmd.Dir, envValue(s.cmd.Env, "PWD"), home)
	}
	if got := envValue(s.cmd.Env, stdioChildVar); got != "mcp" {
		t.Errorf("the server's own variable is %q", got)
	}
}
