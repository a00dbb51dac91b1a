package transport

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// startProcess starts cmd inside a job object of its own before the child
// runs a single instruction: Windows makes it suspended, mcptray puts it in
// the job, counts the job among the servers' (ServerProcess), and only then
// lets its first thread run. Started and then joined, as it once was, a
// server had a moment in which a program it started at once stayed out of
// the job: outside the reach of stop and of the job's end with mcptray, and
// not known as a server's on the control pipe.
//
// Windows 10 can make a process in a job (PROC_THREAD_ATTRIBUTE_JOB_LIST),
// but os/exec takes no such attribute, and its SysProcAttr has no field for
// it. CREATE_SUSPENDED is what it does take; CreateProcess's handle on the
// first thread is closed by os/exec, so the thread is found again by the
// process id (resumeProcess).
//
// The job is set to kill everything in it when its last handle closes: at
// release, or when mcptray itself ends, however it ends. If the job cannot
// be made or joined (a Windows older than 8 inside a job of its own, say),
// the child runs without one, and startGroup says so in the log.
func startProcess(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	job, jobErr := newKillOnCloseJob()
	if err := cmd.Start(); err != nil {
		if job != 0 {
			windows.CloseHandle(job)
		}
		return err
	}
	pid := cmd.Process.Pid
	fail := func(err error) error {
		if job != 0 {
			windows.CloseHandle(job)
		}
		_ = cmd.Process.Kill() // it never ran
		_ = cmd.Wait()
		return err
	}
	const access = windows.SYNCHRONIZE | windows.PROCESS_SET_QUOTA | windows.PROCESS_TERMINATE | windows.PROCESS_QUERY_LIMITED_INFORMATION
	h, err := windows.OpenProcess(access, false, uint32(pid))
	if err != nil {
		return fail(fmt.Errorf("opening process %d: %w", pid, err))
	}
	if jobErr == nil {
		if jobErr = windows.AssignProcessToJobObject(job, h); jobErr != nil {
			windows.CloseHandle(job)
			job = 0
		}
	}
	if job != 0 {
		// Before it runs: a program it starts at once may already ask
		// for the control pipe.
		addServerJob(job)
	}
	if err := resumeProcess(uint32(pid)); err != nil {
		if job != 0 {
			dropServerJob(job)
		}
		windows.CloseHandle(h)
		return fail(fmt.Errorf("letting process %d run: %w", pid, err))
	}
	startedGroups.Lock()
	startedGroups.m[pid] = startedGroup{sys: sysGroup{job: job, proc: h}, jobErr: jobErr}
	startedGroups.Unlock()
	return nil
}

// startedGroup is what startProcess made for a child, until startGroup
// takes it: the job (0 if none) and why there is none.
type startedGroup struct {
	sys    sysGroup
	jobErr error
}

// startedGroups are the children startProcess started and startGroup has
// not yet taken, by process id. The handle on each keeps its id from going
// to another process meanwhile.
var startedGroups = struct {
	sync.Mutex
	m map[int]startedGroup
}{m: map[int]startedGroup{}}

// takeStarted is what startProcess made for child pid, and forgets it.
func takeStarted(pid int) (startedGroup, bool) {
	startedGroups.Lock()
	defer startedGroups.Unlock()
	g, ok := startedGroups.m[pid]
	delete(startedGroups.m, pid)
	return g, ok
}

// resumeProcess lets a process made suspended run: it resumes its threads,
// found in a snapshot of the system's threads. A process made suspended
// has the one thread CreateProcess made, and runs nothing before it is
// resumed, so nothing of its own can be among them.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		t, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("opening thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(t)
		windows.CloseHandle(t)
		if err != nil {
			return fmt.Errorf("resuming thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("listing threads: %w", err)
	}
	if resumed == 0 {
		return errors.New("it has no thread")
	}
	return nil
}

// forgetStarted closes what startProcess made for child pid when no
// startGroup will take it (the child is being ended as its start failed
// after all): closing the job ends everything in it.
func forgetStarted(pid int) {
	st, ok := takeStarted(pid)
	if !ok {
		return
	}
	if st.sys.job != 0 {
		dropServerJob(st.sys.job)
		windows.CloseHandle(st.sys.job)
	}
	windows.CloseHandle(st.sys.proc)
}
