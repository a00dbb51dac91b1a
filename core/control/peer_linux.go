package control

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// socketPeer is the user id and process id of the process at the other
// end of the socket fd, as they were when it connected (SO_PEERCRED), the
// pid as this process's PID namespace numbers it.
func socketPeer(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// describePeer fills in what /proc says of p.pid: its program, and whether
// it lives in this process's PID namespace. A sandboxed server runs in a
// PID namespace of its own, so a peer in another one is a sandboxed
// program whatever key it holds; one whose namespace cannot be read (it
// is gone, or the kernel numbers it 0: outside this namespace's view)
// counts as one, as nothing says otherwise.
func describePeer(p *peer) {
	if p.pid <= 0 {
		p.sandboxed = "mcptray cannot tell which process it is"
		return
	}
	proc := filepath.Join("/proc", strconv.Itoa(p.pid))
	if exe, err := os.Readlink(filepath.Join(proc, "exe")); err == nil {
		p.program = filepath.Base(exe)
	}
	mine, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		p.sandboxed = fmt.Sprintf("mcptray cannot read its own PID namespace: %v", err)
		return
	}
	theirs, err := os.Readlink(filepath.Join(proc, "ns", "pid"))
	switch {
	case err != nil:
		p.sandboxed = fmt.Sprintf("mcptray cannot read its PID namespace: %v", err)
	case theirs != mine:
		p.sandboxed = "it runs in a PID namespace of its own, as mcptray's sandbox runs servers"
	}
}
