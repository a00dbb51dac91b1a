package control

import "golang.org/x/sys/unix"

// socketUID is the user id of the process at the other end of the socket fd.
func socketUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
