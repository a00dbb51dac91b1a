//go:build !unix

package gateway

import (
	"errors"
	"io"
	"os"
	"time"
)

// nowWriter writes to an app's pipe or socket without waiting long, for
// answerSoon: a write with a short deadline.
type nowWriter struct {
	w io.Writer
	d interface{ SetWriteDeadline(time.Time) error }
}

// newNowWriter is the nowWriter of w, or nil when w takes no deadline.
func newNowWriter(w io.Writer) *nowWriter {
	d, ok := w.(interface{ SetWriteDeadline(time.Time) error })
	if !ok || d.SetWriteDeadline(time.Time{}) != nil {
		return nil
	}
	return &nowWriter{w: w, d: d}
}

// write writes as much of b as goes in within answerAtOnce, and returns
// how much went in; err is nil when the rest has to wait, else why
// nothing more can go.
func (w *nowWriter) write(b []byte) (int, error) {
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

// answerAtOnce is how long answerSoon lets an app take an answer: a write
// into a pipe or socket with room takes microseconds.
const answerAtOnce = 5 * time.Millisecond
