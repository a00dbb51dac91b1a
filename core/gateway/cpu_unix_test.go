//go:build unix

package gateway

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time this process has spent so far, user and
// system: the gateway's, the service's and the benchmark's own client's,
// not the test server's.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
