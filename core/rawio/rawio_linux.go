package rawio

import (
	"io"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawConn is the descriptor of an *os.File or net.Conn in non-blocking
// mode that the poller has: one whose deadlines can be set.
func rawConn(x any) syscall.RawConn {
	sc, ok := x.(syscall.Conn)
	if !ok {
		return nil
	}
	d, ok := x.(interface{ SetDeadline(time.Time) error })
	if !ok || d.SetDeadline(time.Time{}) != nil {
		return nil // not the poller's: its reads and writes block
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	if raw.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = err == nil && flags&unix.O_NONBLOCK != 0
	}) != nil || !nonblocking {
		return nil
	}
	return raw
}

// reader reads one Read at a time (mu), with the state of the read in
// progress its own and its function for the poller made once, so that a
// read allocates nothing.
type reader struct {
	raw  syscall.RawConn
	read func(fd uintptr) bool // r.readFD

	mu  sync.Mutex
	p   []byte
	n   int
	err error
}

func newReader(r io.Reader) *reader {
	raw := rawConn(r)
	if raw == nil {
		return nil
	}
	rr := &reader{raw: raw}
	rr.read = rr.readFD
	return rr
}

func (r *reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p, r.n, r.err = p, 0, nil
	if err := r.raw.Read(r.read); err != nil && r.err == nil {
		r.err = err // closed
	}
	n, err := r.n, r.err
	r.p, r.err = nil, nil
	return n, err
}

func (r *reader) readFD(fd uintptr) bool {
	for {
		m, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch e {
		case 0:
			if r.n = int(m); r.n == 0 {
				r.err = io.EOF
			}
			return true
		case unix.EINTR:
		case unix.EAGAIN:
			return false // wait in the poller
		default:
			r.err = e
			return true
		}
	}
}

// writer writes one Write at a time (mu), with its state and its
// function for the poller made once.
type writer struct {
	raw   syscall.RawConn
	write func(fd uintptr) bool // w.writeFD

	mu   sync.Mutex
	b    []byte
	n    int
	wait bool
	err  error
}

func newWriter(w io.Writer) *writer {
	raw := rawConn(w)
	if raw == nil {
		return nil
	}
	rw := &writer{raw: raw}
	rw.write = rw.writeFD
	return rw
}

func (w *writer) Write(b []byte) (n int, err error) {
	n, err = w.try(b, true)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	return n, err
}

func (w *writer) TryWrite(b []byte) (n int, err error) {
	return w.try(b, false)
}

// try writes b; with wait, until all of it is written.
func (w *writer) try(b []byte, wait bool) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b, w.n, w.wait, w.err = b, 0, wait, nil
	if err := w.raw.Write(w.write); err != nil && w.err == nil {
		w.err = err // closed
	}
	n, err := w.n, w.err
	w.b, w.err = nil, nil
	return n, err
}

func (w *writer) writeFD(fd uintptr) bool {
	for w.n < len(w.b) {
		m, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.b[w.n])), uintptr(len(w.b)-w.n))
		switch e {
		case 0:
			if m == 0 {
				w.err = io.ErrShortWrite
				return true
			}
			w.n += int(m)
		case unix.EINTR:
		case unix.EAGAIN:
			return !w.wait // full: wait in the poller, or leave the rest
		default:
			w.err = e
			return true
		}
	}
	return true
}
