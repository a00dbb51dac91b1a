package transport

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// pathSeparators are the characters that make a command a path rather than
// a name to look up on PATH.
const pathSeparators = `/\:`

// sysGroup holds the job object that the child and everything it starts
// belong to, and a handle on the child itself.
type sysGroup struct {
	job  windows.Handle // 0 if no job could be made: then only the child is reachable
	proc windows.Handle
}

// sysProcAttr starts the child in a process group of its own (so a console
// Ctrl+C meant for mcptray does not reach it) and with no console window: a
// tray app has no console, and a console program started from it would
// otherwise flash one up.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
}

// wrapScript runs a .cmd or .bat file through cmd.exe /d /s /c, which is how
// npx, pnpm and most npm-installed tools exist on Windows, with the command
// line quoted and escaped for cmd.exe (see cmdShimLine).
func wrapScript(cmd *exec.Cmd, env []string) {
	switch strings.ToLower(filepath.Ext(cmd.Path)) {
	case ".cmd", ".bat":
	default:
		return
	}
	comspec := envValue(env, "ComSpec")
	if comspec == "" {
		root := envValue(env, "SystemRoot")
		if root == "" {
			root = `C:\Windows`
		}
		comspec = filepath.Join(root, "System32", "cmd.exe")
	}
	line := cmdShimLine(cmd.Path, cmd.Args[1:])
	cmd.Path = comspec
	cmd.Args = []string{comspec, "/d", "/s", "/c", `"` + line + `"`}
	cmd.SysProcAttr.CmdLine = syscall.EscapeArg(comspec) + ` /d /s /c "` + line + `"`
}

func findExecutable(path string, env []string) (string, bool) {
	if i := strings.LastIndexAny(path, `:\/.`); i >= 0 && path[i] == '.' && isFile(path) {
		return path, true
	}
	for _, ext := range pathExts(env) {
		if isFile(path + ext) {
			return path + ext, true
		}
	}
	return "", false
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// pathExts are the extensions a bare name may stand for, from the child's
// PATHEXT.
func pathExts(env []string) []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(envValue(env, "PATHEXT")), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// startGroup begins watching a child startProcess started, in the job
// object it made for it (start_windows.go). Processes the child starts
// join the job by themselves.
func startGroup(p *os.Process, logger *slog.Logger) (*procGroup, error) {
	st, ok := takeStarted(p.Pid)
	if !ok {
		return nil, fmt.Errorf("process %d was not started by mcptray's start", p.Pid)
	}
	if st.sys.job == 0 {
		logger.Warn("cannot put the server in a job object; only its own process can be stopped", "pid", p.Pid, "err", st.jobErr)
	}
	// The handle keeps the pid from being reused while we wait on it.
	h := st.sys.proc
	exited := make(chan struct{})
	go func() {
		windows.WaitForSingleObject(h, windows.INFINITE)
		close(exited)
	}()
	return &procGroup{pid: p.Pid, exited: exited, sys: st.sys}, nil
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// terminate has nothing polite to send on Windows: there is no SIGTERM, and
// a console control event reaches only processes sharing mcptray's console,
// which a tray app does not have. Closing stdin was the polite request, so
// it reports false and stop lets that request have the grace period.
func (g *procGroup) terminate() bool { return false }

// kill ends everything in the job (or the child alone, without one).
func (g *procGroup) kill() {
	if g.sys.job != 0 {
		_ = windows.TerminateJobObject(g.sys.job, 1)
		return
	}
	_ = windows.TerminateProcess(g.sys.proc, 1)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which x/sys lacks.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// alive reports whether the child or anything else in its job still runs.
func (g *procGroup) alive() bool {
	if !g.hasExited() {
		return true
	}
	if g.sys.job == 0 {
		return false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(g.sys.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err != nil || info.ActiveProcesses > 0
}

// release closes the job, which kills whatever is still in it.
func (g *procGroup) release() {
	if g.sys.job != 0 {
		dropServerJob(g.sys.job)
		windows.CloseHandle(g.sys.job)
		g.sys.job = 0
	}
	if g.hasExited() && g.sys.proc != 0 {
		windows.CloseHandle(g.sys.proc)
		g.sys.proc = 0
	}
}

// exitStatus is how a reaped child ended: its exit code.
func exitStatus(ps *os.ProcessState) (code, signal int) {
	return ps.ExitCode(), 0
}

// signalName has nothing to name: no signal ends a process on Windows.
func signalName(int) string { return "" }
