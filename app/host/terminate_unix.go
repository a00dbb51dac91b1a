//go:build unix

package host

import (
	"os"
	"syscall"
)

// terminate asks a process to end.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
