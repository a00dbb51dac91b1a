//go:build freebsd || netbsd || openbsd || dragonfly

package control

import "golang.org/x/sys/unix"

// socketPeer is the user id of the process at the other end of the
// socket fd; its process id is not told here (0).
func socketPeer(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	return int(cred.Uid), 0, nil
}

// describePeer has nothing more to say of a peer here: servers run
// without a sandbox of mcptray's on these systems.
func describePeer(*peer) {}
