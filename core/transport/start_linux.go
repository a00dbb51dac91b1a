package transport

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startProcess starts cmd so that the kernel kills the child with SIGKILL
// when mcptray dies, however it dies: a SIGKILL or a crash leaves stop no
// chance to run, and the server would otherwise live on with no one to talk
// to (PR_SET_PDEATHSIG, through SysProcAttr.Pdeathsig).
//
// The signal is sent when the thread that forked the child exits, not the
// process, and the Go runtime ends a thread when a goroutine locked to it
// exits. So the fork runs on a thread locked to this goroutine for the call
// only: unlocked again, the thread goes back to the runtime, which keeps it
// for as long as mcptray runs.
//
// Only the child gets the signal. Its own children (npx's node, uvx's
// python) stay in its process group but are not signalled: they become
// orphans. One that reads the server's stdin sees it end and one that writes
// to its stdout gets EPIPE, since mcptray held the other ends, and most
// servers then exit; one that does neither lives on. A child that executes
// a set-user-ID program loses the setting too.
func startProcess(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}

// forgetStarted has nothing to forget: startProcess keeps nothing here.
func forgetStarted(int) {}
