package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The launcher stays as the server's init: it forks the server, passes on
// the signals mcptray sends, and when the server ends, or mcptray asks it to
// stop, it ends every process the server left, however it detached (a
// double fork, setsid), before it exits with the server's status. In a PID
// namespace it is the namespace's init and the kernel ends the rest when it
// exits; elsewhere it is their child subreaper, so that orphans of the
// server become its children rather than the system's, and it ends them
// itself.
//
// This is the Go launcher's init; cmd/mcptray-sandbox's C does the same.

// leftGrace is how long the server's leftovers have between SIGTERM and
// SIGKILL once it has ended: less than mcptray's own grace before it
// kills the launcher, so that the launcher is done first.
const leftGrace = time.Second

// runInit is the init's work: p and plan come from the policy raw, which
// holds the program and its argv too; env is the server's environment.
func runInit(p Policy, raw string, plan launchPlan, env []string) (int, error) {
	// A thread's capabilities, its bounding set and no-new-privileges are
	// its own, not its process's: they are given up, and the server
	// forked, on this one thread, never unlocked. Forked from another of
	// the runtime's threads, the server had them all (root's in CI, the
	// launcher's own in its namespaces).
	runtime.LockOSThread()
	if plan.own && os.Getpid() != 1 {
		return enterNamespaces([]string{os.Args[0], LauncherArg, "--"}, plan.bridge > 0, plan.bridge > 0)
	}
	if plan.bridge > 0 {
		if err := bridge(plan.bridge); err != nil {
			return 126, err
		}
	}
	if plan.mounts {
		carried, err := privateMounts(append(append([]string{plan.program}, p.Read...), p.Write...))
		if err != nil {
			return 126, err
		}
		if carried {
			raw = withoutTmp(raw)
		}
	}
	if err := dropCapabilities(); err != nil {
		return 126, err
	}
	// Nothing the server runs may read the init's memory or trace it, and
	// the init gains no privileges either.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 126, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 126, err
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 126, err
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	// The launcher again, told a policy without "i": it restricts itself
	// and executes the server. Its program by /proc/self/exe, which
	// reaches it even where its own /tmp now hides its path.
	childEnv := append(env, policyEnv+"="+withoutInit(raw))
	pid, err := syscall.ForkExec("/proc/self/exe", []string{os.Args[0], LauncherArg, "--"}, &syscall.ProcAttr{
		Env: childEnv, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 126, err
	}
	go func() {
		for s := range sigs {
			_ = syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	code := 0
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break // no children left
		}
		if got == pid {
			code = statusCode(ws)
			break
		}
	}
	endLeftovers()
	return code, nil
}

// statusCode is the exit code that says how a child ended: its own, or
// 128 and the signal's number, as a shell says it.
func statusCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// endLeftovers ends what is left of the server: SIGTERM, leftGrace, then
// SIGKILL until nothing is left to reap.
func endLeftovers() {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	defer signal.Stop(chld)
	signalLeftovers(syscall.SIGTERM)
	timer := time.NewTimer(leftGrace)
	defer timer.Stop()
	for reap() {
		select {
		case <-chld:
		case <-timer.C:
			for {
				signalLeftovers(syscall.SIGKILL)
				var ws syscall.WaitStatus
				if _, err := syscall.Wait4(-1, &ws, 0, nil); errors.Is(err, syscall.ECHILD) {
					return
				}
			}
		}
	}
}

// reap reaps the children that have ended and reports whether any is
// left.
func reap() bool {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return false
		case got == 0:
			return true
		}
	}
}

// signalLeftovers sends sig to every process the server left: in a PID
// namespace, all of it but the init (kill -1); elsewhere the init's
// children, orphans included (it is their subreaper), whose own children
// become its children in turn when they end.
func signalLeftovers(sig syscall.Signal) {
	if os.Getpid() == 1 {
		_ = syscall.Kill(-1, sig)
		return
	}
	for _, pid := range children() {
		_ = syscall.Kill(pid, sig)
	}
}

// children are this process's children, from /proc.
func children() []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// withoutInit is the policy raw without the lines only the init acts on.
func withoutInit(raw string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(raw, "\n") {
		if l == "i\n" || l == "i" || l == "m\n" || l == "m" || l == "n\n" || l == "n" || strings.HasPrefix(l, "b ") {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}

// withoutTmp is the policy raw without a rule on /tmp itself: where the
// computer's /tmp is carried into the server's own, such a rule would
// hold for what is carried too (mounts_linux.go).
func withoutTmp(raw string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(raw, "\n") {
		if l == "r "+tmpDir+"\n" || l == "w "+tmpDir+"\n" {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
