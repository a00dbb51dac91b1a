package transport

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// watchExit returns a channel closed when the child pid exits, without
// reaping it: waitid with WNOWAIT leaves the zombie for Stdio.stop's cmd.Wait,
// the only Wait this process gets. A pidfd names exactly this child even if
// it is reaped meanwhile; kernels older than 5.3 have none, and then the pid
// does, which is as good because nothing reaps the child before stop.
//
// The goroutine blocks in the kernel until the child exits, which stop
// makes sure of.
func watchExit(pid int) (<-chan struct{}, error) {
	idType, id := unix.P_PID, pid
	fd, err := unix.PidfdOpen(pid, 0)
	if err == nil {
		idType, id = unix.P_PIDFD, fd
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		if idType == unix.P_PIDFD {
			defer unix.Close(fd)
		}
		var info unix.Siginfo
		for {
			// nil: it exited; ECHILD: it was reaped already, so it exited.
			err := unix.Waitid(idType, id, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return exited, nil
}

// groupHasLiving reports whether process group pgid has a member that is not
// a zombie, by reading /proc: kill(-pgid, 0) succeeds as long as a zombie
// member waits for its parent, which for an orphan can take a while. If /proc
// cannot be read, it answers yes, which only makes stop wait longer.
func groupHasLiving(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		state, pg, ok := parseProcStat(stat)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseProcStat reads the state and process group from /proc/<pid>/stat:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and
// parentheses, so the fields are counted from the last ')'.
func parseProcStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
