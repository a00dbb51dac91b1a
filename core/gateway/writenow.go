package gateway

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/mcptray/mcptray/core/rawio"
)

// nowWriter writes to an app's pipe or socket without waiting (long),
// for answerSoon.
type nowWriter interface {
	// TryWrite writes as much of b as goes in at once and returns how
	// much went in; err is nil when the rest has to wait, else why
	// nothing more can go (the app went away).
	TryWrite(b []byte) (n int, err error)
}

// newNowWriter is w's nowWriter: one non-blocking write(2) where it can
// (rawio), else a write with a short deadline; nil when w takes neither.
// The deadline's timer, set and stopped on every answer, woke the
// runtime's poller on another thread: that is the fallback.
func newNowWriter(w io.Writer) nowWriter {
	if tw := rawio.NewTryWriter(w); tw != nil {
		return tw
	}
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	if !ok || d.SetWriteDeadline(time.Time{}) != nil {
		return nil
	}
	return deadlineWriter{w, d}
}

// deadlineWriter writes with a short deadline.
type deadlineWriter struct {
	w io.Writer
	d interface{ SetWriteDeadline(time.Time) error }
}

func (w deadlineWriter) TryWrite(b []byte) (int, error) {
	if err := w.d.SetWriteDeadline(time.Now().Add(answerAtOnce)); err != nil {
		return 0, nil
	}
	n, err := w.w.Write(b)
	_ = w.d.SetWriteDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = nil
	}
	return n, err
}

// answerAtOnce is how long answerSoon lets an app take an answer, where
// it writes with a deadline: a write into a pipe or socket with room takes
// microseconds.
const answerAtOnce = 5 * time.Millisecond
