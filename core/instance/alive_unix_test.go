//go:build unix

package instance

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this pid still exists.
func alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
