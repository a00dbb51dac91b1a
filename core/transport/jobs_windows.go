package transport

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// serverJobs are the job objects of the servers this process runs, for
// ServerProcess: startGroup adds each, release takes it out before it
// closes it.
var serverJobs = struct {
	sync.Mutex
	set map[windows.Handle]bool
}{set: map[windows.Handle]bool{}}

func addServerJob(job windows.Handle) {
	serverJobs.Lock()
	serverJobs.set[job] = true
	serverJobs.Unlock()
}

func dropServerJob(job windows.Handle) {
	serverJobs.Lock()
	delete(serverJobs.set, job)
	serverJobs.Unlock()
}

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// ServerProcess reports whether process pid runs in the job object of a
// server this process started: the server itself, or anything it started,
// which joins its job by itself and cannot leave it. The control endpoint
// asks, so that no server decides what mcptray trusts on Windows either.
// An error says that mcptray cannot tell (the process is gone, say).
func ServerProcess(pid int) (bool, error) {
	if pid <= 0 {
		return false, fmt.Errorf("process id %d", pid)
	}
	// Windows lets IsProcessInJob ask with the limited right; Wine 10
	// wants the full one (else "Access denied"), which a process of the
	// same account gives too.
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		h, err = windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	}
	if err != nil {
		return false, fmt.Errorf("opening process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	serverJobs.Lock()
	defer serverJobs.Unlock()
	for job := range serverJobs.set {
		var in int32
		r, _, err := procIsProcessInJob.Call(uintptr(h), uintptr(job), uintptr(unsafe.Pointer(&in)))
		if r == 0 {
			return false, fmt.Errorf("asking whether process %d is in a server's job: %w", pid, err)
		}
		if in != 0 {
			return true, nil
		}
	}
	return false, nil
}
