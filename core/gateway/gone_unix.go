//go:build unix

package gateway

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// watchConn calls gone when the app closes c before stop is called, so
// that a request whose app went away ends. The HTTP server reads nothing
// from c while its request runs, so a closed connection would go unseen;
// the watch looks without reading (MSG_PEEK), and only once the request
// has run for after, so that a quick request costs a timer and no
// goroutine. stop ends the watch before it returns: the server reads c
// again after it.
func watchConn(c net.Conn, after time.Duration, gone func()) (stop func()) {
	if w := newConnWatch(c, after, gone); w != nil {
		return w.stop
	}
	return func() {}
}

// newConnWatch starts watchConn's watch; nil when c has no descriptor to
// watch.
func newConnWatch(c net.Conn, after time.Duration, gone func()) *connWatch {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &connWatch{c: c, raw: raw, gone: gone}
	w.timer = time.AfterFunc(after, w.watch)
	return w
}

// connWatch is one watchConn.
type connWatch struct {
	c     net.Conn
	raw   syscall.RawConn
	gone  func()
	timer *time.Timer

	mu      sync.Mutex
	stopped bool
	running chan struct{} // closed when watch returns; nil until it starts
}

// watch waits until c has something to read and calls gone if that is
// its end.
func (w *connWatch) watch() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.running = make(chan struct{})
	// The server's deadline for reading the request would end the watch
	// of a longer one; stop sets its own after this.
	_ = w.c.SetReadDeadline(time.Time{})
	w.mu.Unlock()
	defer close(w.running)
	closed := false
	var b [1]byte
	_ = w.raw.Read(func(fd uintptr) bool {
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			return false // nothing yet: wait until there is
		}
		// The end (0 bytes), or a reset; bytes are the app's next
		// request, and the app is still there.
		closed = err != nil || n == 0
		return true
	})
	if closed {
		w.gone()
	}
}

// aLongTimeAgo is a deadline that has passed: it wakes a waiting read.
var aLongTimeAgo = time.Unix(1, 0)

func (w *connWatch) stop() {
	if w.timer.Stop() {
		return // it never started
	}
	w.mu.Lock()
	w.stopped = true
	running := w.running
	w.mu.Unlock()
	if running == nil {
		return
	}
	_ = w.c.SetReadDeadline(aLongTimeAgo)
	<-running
	_ = w.c.SetReadDeadline(time.Time{})
}
