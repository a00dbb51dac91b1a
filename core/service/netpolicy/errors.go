package netpolicy

import "fmt"

// Error is a change the policy refuses, in plain words. The service gives
// it its code (core/service's Invalid or NotAllowed).
type Error struct {
	// NotAllowed says the change does not apply (what a server's own
	// entry asks for, what its runtime declares); else what was given
	// cannot be used.
	NotAllowed bool
	Msg        string
}

func (e *Error) Error() string { return e.Msg }

func invalid(format string, a ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, a...)}
}

func notAllowedError(format string, a ...any) *Error {
	return &Error{NotAllowed: true, Msg: fmt.Sprintf(format, a...)}
}
