// Package rawio reads and writes pipes and sockets in non-blocking mode
// with raw system calls, through the runtime's poller. An ordinary read or
// write of an *os.File or a net.Conn tells the scheduler that a system
// call starts, so that it can give the goroutine's processor away should
// the call block; when nothing else runs, that also wakes the runtime's
// monitor thread (sysmon) from its sleep, a futex call and a thread's
// wake-up. A call through mcptray's gateway makes several such reads and
// writes, each after a quiet moment, and on two cores those wake-ups cost
// it a tenth of its CPU (bench/README.md). A read or write of a
// descriptor in non-blocking mode never blocks: it is made raw, and when
// it would block, the goroutine waits in the poller as before.
package rawio

import "io"

// Reader is r read with raw system calls when r is a pipe or socket in
// non-blocking mode that the poller has, else r itself.
func Reader(r io.Reader) io.Reader {
	if rr := newReader(r); rr != nil {
		return rr
	}
	return r
}

// Writer is w written with raw system calls when w is a pipe or socket in
// non-blocking mode that the poller has, else w itself. Its Write waits,
// in the poller, until all is written, as w's does.
func Writer(w io.Writer) io.Writer {
	if rw := newWriter(w); rw != nil {
		return rw
	}
	return w
}

// TryWriter writes without waiting.
type TryWriter interface {
	// TryWrite writes as much of b as goes in at once and returns how
	// much went in; err is nil when the rest has to wait (the pipe is
	// full), else why nothing more can go.
	TryWrite(b []byte) (n int, err error)
}

// NewTryWriter is w's TryWriter, or nil when w is not a pipe or socket in
// non-blocking mode that the poller has.
func NewTryWriter(w io.Writer) TryWriter {
	if rw := newWriter(w); rw != nil {
		return rw
	}
	return nil
}
