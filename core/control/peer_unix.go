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
			uid, err := peerUID(uc)
			if err == nil && uid == os.Getuid() {
				return c, nil
			}
		}
		c.Close() // another user, or one we cannot tell: never served
	}
}

// peerUID is the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, serr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, serr = socketUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, serr
}
