package sandbox

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openTerminal makes a pseudo-terminal: its master, which the check holds,
// and its other end, which the probe gets as its controlling terminal
// (terminalAttr), so that the tty door is really tried.
func openTerminal() (master, tty *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening a terminal: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlocking a terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("naming a terminal: %w", err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	tty, err = os.OpenFile(name, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("opening a terminal: %w", err)
	}
	return master, tty, nil
}

// terminalAttr is attr with the process's stdin, a terminal, as the
// controlling terminal of a session of its own: what a server started
// from a terminal has, and what /dev/tty then names.
func terminalAttr(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Setsid, attr.Setctty, attr.Ctty = true, true, 0
	return attr
}
