//go:build unix

package transport

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// pathSeparators are the characters that make a command a path rather than
// a name to look up on PATH.
const pathSeparators = "/"

// sysGroup has nothing on Unix: the process group's id is the leader's pid.
type sysGroup struct{}

// sysProcAttr puts the child in a process group of its own, so that
// signalling the group reaches everything it starts (npx's node, uvx's
// python) and nothing of mcptray's.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// wrapScript has nothing to do on Unix: the kernel runs scripts through
// their #! line.
func wrapScript(*exec.Cmd, []string) {}

func findExecutable(path string, _ []string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return path, true
}

// startGroup begins watching a child that has just started. It must run
// before anything could reap the child, so that the pid it watches is still
// the child's: nothing does until Stdio.stop calls cmd.Wait.
func startGroup(p *os.Process, _ *slog.Logger) (*procGroup, error) {
	exited, err := watchExit(p.Pid)
	if err != nil {
		return nil, err
	}
	return &procGroup{pid: p.Pid, exited: exited}, nil
}

// terminate asks the whole group to stop: SIGTERM. It reports whether it
// could ask at all, which on Unix it always can.
func (g *procGroup) terminate() bool {
	g.signal(syscall.SIGTERM)
	return true
}

// kill ends the whole group: SIGKILL.
func (g *procGroup) kill() { g.signal(syscall.SIGKILL) }

func (g *procGroup) signal(sig syscall.Signal) {
	// The group id is the leader's pid. It cannot go to another process while
	// any member lives, even after the leader is reaped.
	_ = syscall.Kill(-g.pid, sig)
}

// alive reports whether the leader or anything else in its group still runs.
// A zombie does not count: its parent may be slow to reap it (an orphan's
// new parent is init, or whatever reaper it has), and it runs no code.
func (g *procGroup) alive() bool {
	if !g.hasExited() {
		return true
	}
	if err := syscall.Kill(-g.pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return groupHasLiving(g.pid)
}

func (g *procGroup) release() {}

// exitStatus is how a reaped child ended: its exit status, or the signal
// that ended it (code -1).
func exitStatus(ps *os.ProcessState) (code, signal int) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, int(ws.Signal())
	}
	return ps.ExitCode(), 0
}

// signalName is a signal's name: "SIGKILL" for 9, "" if it has none.
func signalName(sig int) string { return unix.SignalName(syscall.Signal(sig)) }
