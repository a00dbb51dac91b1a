//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package transport

import (
	"errors"

	"golang.org/x/sys/unix"
)

// watchExit returns a channel closed when the child pid exits, without
// reaping it: a kqueue NOTE_EXIT event is only news, and the zombie stays for
// Stdio.stop's cmd.Wait, the only Wait this process gets. It is registered before
// anything could reap the child, so the pid is still the child's; ESRCH then
// means the child is already a zombie, that is, it exited.
func watchExit(pid int) (<-chan struct{}, error) {
	exited := make(chan struct{})
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		unix.Close(kq)
		if errors.Is(err, unix.ESRCH) {
			close(exited)
			return exited, nil
		}
		return nil, err
	}
	go func() {
		defer close(exited)
		defer unix.Close(kq)
		events := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, events, nil)
			if errors.Is(err, unix.EINTR) || (err == nil && n == 0) {
				continue
			}
			return
		}
	}()
	return exited, nil
}

// groupHasLiving cannot tell a zombie from a running process here; kill(-pgid,
// 0) said someone is in the group, so someone is.
func groupHasLiving(int) bool { return true }
