//go:build unix

package gateway

import (
	"errors"
	"io"
	"syscall"
	"time"
)

// nowWriter writes to an app's pipe or socket without waiting, for
// answerSoon: one write(2), straight on its descriptor. Taking a write
// deadline around a Write instead, as it did, set and stopped a timer on
// every answer, which woke the runtime's poller on another thread.
type nowWriter struct{ raw syscall.RawConn }

// newNowWriter is the nowWriter of w, or nil when w has no descriptor
// in non-blocking mode (the runtime's poller has it: a pipe, a socket),
// where a write could wait.
func newNowWriter(w io.Writer) *nowWriter {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	d, ok := w.(interface{ SetWriteDeadline(t time.Time) error })
	if !ok || d.SetWriteDeadline(time.Time{}) != nil {
		return nil // not the poller's: its writes block
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &nowWriter{raw: raw}
}

// write writes as much of b as goes in at once, and returns how much went
// in; err is nil when the rest has to wait (the pipe is full), else why
// nothing more can go (the app went away).
func (w *nowWriter) write(b []byte) (n int, err error) {
	rerr := w.raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, e := syscall.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch {
			case errors.Is(e, syscall.EINTR):
				continue
			case errors.Is(e, syscall.EAGAIN):
				return true // full: the rest waits, elsewhere
			case e != nil:
				err = e
				return true
			case m <= 0:
				err = io.ErrShortWrite
				return true
			}
		}
		return true
	})
	if err == nil {
		err = rerr
	}
	return n, err
}
