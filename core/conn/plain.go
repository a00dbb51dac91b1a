package conn

import (
	"context"
	"errors"
	"strings"

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
	return sanitize.Line(err.Error())
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
	return &stderrError{err: err, last: last}
}

type stderrError struct {
	err  error
	last string
}

func (e *stderrError) Error() string { return e.err.Error() + " (it said: " + e.last + ")" }
func (e *stderrError) Unwrap() error { return e.err }
