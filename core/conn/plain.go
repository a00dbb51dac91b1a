package conn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// plain turns an error into the words a person sees next to a server.
func plain(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "it did not answer in time"
	}
	return sanitize.Line(tidy(err.Error()))
}

// readable returns err in words a person can read: "cancelled" for a
// cancelled call, "it did not answer in time" for one that ran out of time,
// and otherwise err's message without mcp-go's wrapping (see tidy). errors.Is
// and errors.As still see err.
func readable(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return &plainError{msg: "cancelled", err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &plainError{msg: "it did not answer in time", err: err}
	}
	if msg := tidy(err.Error()); msg != err.Error() {
		return &plainError{msg: msg, err: err}
	}
	return err
}

// tidy takes mcp-go's wrapping out of an error message: the "transport
// error: " it puts before every transport failure, and the second "failed to
// send request: " of the two its HTTP transports stack.
func tidy(msg string) string {
	msg = strings.ReplaceAll(msg, "transport error: ", "")
	const send = "failed to send request: "
	for strings.Contains(msg, send+send) {
		msg = strings.ReplaceAll(msg, send+send, send)
	}
	return msg
}

// plainError is an error with a message of our own words over the error it
// stands for.
type plainError struct {
	msg string
	err error
}

func (e *plainError) Error() string { return e.msg }
func (e *plainError) Unwrap() error { return e.err }

// notSettled says why WaitSettled stopped waiting: "cancelled", or which
// servers were still starting and for how long they were waited for.
func notSettled(ctx context.Context, start time.Time, snap Report) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &plainError{msg: "cancelled", err: ctx.Err()}
	}
	waited := time.Since(start)
	if dl, ok := ctx.Deadline(); ok {
		waited = dl.Sub(start) // what the caller asked for, not a little more
	}
	if waited >= time.Second {
		waited = waited.Round(time.Second)
	} else {
		waited = waited.Round(time.Millisecond)
	}
	var names []string
	for _, s := range snap.Servers {
		if s.Status.State == Pending {
			names = append(names, s.Name)
		}
	}
	return &plainError{msg: fmt.Sprintf("%s did not finish starting within %s", strings.Join(names, ", "), waited), err: ctx.Err()}
}

// withStderr adds the last line a failed program printed, which usually says
// why it failed ("Error: Cannot find module …").
func withStderr(err error, stderr string) error {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return err
	}
	if len(last) > 300 {
		last = last[:300] + "…"
	}
	return &stderrError{err: err, last: last, tail: stderr}
}

type stderrError struct {
	err  error
	last string
	// tail is all of its error output kept, for the server's detail
	// (a file its sandbox refused is often lines above the last).
	tail string
}

func (e *stderrError) Error() string { return e.err.Error() + " (it said: " + e.last + ")" }
func (e *stderrError) Unwrap() error { return e.err }
