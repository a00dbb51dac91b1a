//go:build unix

package control

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"
)

// checkOwner refuses a folder that another user owns.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return errors.New("belongs to another user")
	}
	return nil
}

// peerChecked accepts only connections from this process's user.
type peerChecked struct{ net.Listener }

func (l peerChecked) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uc, ok := c.(*net.UnixConn)
		if ok {
			uid, _, err := peerCred(uc)
			if err == nil && uid == os.Getuid() {
				return c, nil
			}
		}
		c.Close() // another user, or one we cannot tell: never served
	}
}

// peerOf is what the kernel says of the process at the other end of c:
// its pid, its program and (Linux) whether it runs in a sandbox's PID
// namespace.
func peerOf(c net.Conn) peer {
	var p peer
	if uc, ok := c.(*net.UnixConn); ok {
		if _, pid, err := peerCred(uc); err == nil {
			p.pid = pid
		}
	}
	describePeer(&p)
	return p
}

// peerCred is the user id and process id (0 where the system does not
// tell) of the process at the other end of c.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	uid, pid, serr := -1, 0, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, pid, serr = socketPeer(int(fd)) }); err != nil {
		return -1, 0, err
	}
	return uid, pid, serr
}
