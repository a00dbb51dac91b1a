//go:build !linux

package sandbox

import (
	"context"
	"io"
	"runtime"
	"time"
)

// ProbeArg is the hidden command that makes mcptray the hostile server
// the check runs in a sandbox; the check runs on Linux only.
const ProbeArg = "sandbox-probe"

// Probe does nothing here: the check runs on Linux only.
func Probe(_ []string, _ io.Reader, _ io.Writer) int { return 2 }

// CheckOptions say how the check runs its probe (Linux only).
type CheckOptions struct {
	Launcher string
	Probe    []string
	Version  string
	Input    func(k Kind, in Input) Input
	Kinds    []Kind
	Proxy    *CheckProxy
}

// Kernel is "" here: the check keeps the kernel of Linux only.
func Kernel() string { return "" }

// Check says that mcptray checks its sandbox on Linux only.
func Check(_ context.Context, o CheckOptions) (Report, error) {
	return Report{Time: time.Now().UTC(), Version: o.Version, Err: "mcptray checks its sandbox on Linux only, not on " + runtime.GOOS}, nil
}

func (s *Scene) endLeftBehind() int { return 0 }
