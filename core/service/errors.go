package service

import (
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/secret"
)

// Code sorts an action's failure, so that a front end can branch on it
// after the error has crossed the control endpoint as text.
type Code string

// The codes of Error.
const (
	// NotFound: no server has that name.
	NotFound Code = "not-found"
	// NotAllowed: the action does not apply to that server (approving a
	// server that needs no approval, removing one from another app).
	NotAllowed Code = "not-allowed"
	// Invalid: what was given cannot be used (a bad URL, a taken name).
	Invalid Code = "invalid"
	// NeedsSignIn: the server wants the person to sign in first.
	NeedsSignIn Code = "needs-sign-in"
	// NoKeychain: no keychain can be used to keep a sign-in.
	NoKeychain Code = "no-keychain"
	// Other: anything else; the message says what.
	Other Code = "failed"
)

// Error is an action's failure in plain words, with its Code. Its message
// never holds a secret.
type Error struct {
	Code Code   `json:"code"`
	Msg  string `json:"message"`
	err  error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.err }

// CodeOf returns err's Code: the one it carries, or the one its cause
// implies (Other when nothing does).
func CodeOf(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case conn.IsNeedsAuth(err):
		return NeedsSignIn
	}
	var ue *secret.UnavailableError
	if errors.As(err, &ue) {
		return NoKeychain
	}
	return Other
}

// IsNeedsSignIn reports whether err means the person must sign in first.
func IsNeedsSignIn(err error) bool { return CodeOf(err) == NeedsSignIn }

func newError(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// wrapError gives err a Code while keeping its cause for errors.Is/As.
func wrapError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: CodeOf(err), Msg: err.Error(), err: err}
}
