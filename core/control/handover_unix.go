//go:build unix

package control

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// CanHandOver says whether f can be handed to the running mcptray: a pipe
// or a socket, as apps give the servers they start. A terminal is not:
// its settings are shared with the shell it belongs to.
func CanHandOver(f *os.File) bool {
	if f == nil {
		return false
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false
	}
	mode := st.Mode & unix.S_IFMT
	return mode == unix.S_IFIFO || mode == unix.S_IFSOCK
}

// sendFiles sends files' descriptors over c, a Unix socket.
func sendFiles(c net.Conn, files ...*os.File) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("not a Unix socket")
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	_, _, err := uc.WriteMsgUnix([]byte{'F'}, unix.UnixRights(fds...), nil)
	return err
}

// receiveFiles receives n descriptors sent by sendFiles over c, as files
// that Go's poller watches, so that closing one ends a read in progress.
func receiveFiles(c net.Conn, n int) ([]*os.File, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a Unix socket")
	}
	oob := make([]byte, unix.CmsgSpace(4*n))
	_, oobn, _, _, err := uc.ReadMsgUnix(make([]byte, 1), oob)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	if len(fds) != n {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("expected %d descriptors, got %d", n, len(fds))
	}
	files := make([]*os.File, n)
	for i, fd := range fds {
		unix.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			return nil, err
		}
		files[i] = os.NewFile(uintptr(fd), fmt.Sprintf("app-%d", i))
	}
	return files, nil
}
