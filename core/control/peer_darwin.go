package control

import (
	"golang.org/x/sys/unix"
)

// socketPeer is the user id and process id of the process at the other
// end of the socket fd, as they were when it connected.
func socketPeer(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	pid, err = unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		pid = 0 // the uid is what admits it; the pid only names it
	}
	return int(cred.Uid), pid, nil
}

// describePeer names p's program, as the kernel keeps its name (cut to 16
// bytes). macOS has no PID namespaces: a server's Seatbelt profile keeps it
// from mcptray's folders, and so from the control key.
func describePeer(p *peer) {
	if p.pid <= 0 {
		return
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", p.pid)
	if err != nil {
		return
	}
	p.program = unix.ByteSliceToString(kp.Proc.P_comm[:])
}
