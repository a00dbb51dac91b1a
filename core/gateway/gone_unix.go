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
// has run for after, so that a quick request costs no goroutine. stop
// ends the watch before it returns: the server reads c again after it.
//
// A request waits for its watch on one list for all (watches), not on a
// timer of its own: a timer set on every request woke the runtime's
// poller on another thread each time (the earliest timer), which cost a
// quick call more than the watch is worth.
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
	w := &connWatch{c: c, sc: sc, gone: gone, due: time.Now().Add(after)}
	watches.add(w)
	return w
}

// connWatch is one watchConn.
type connWatch struct {
	c    net.Conn
	sc   syscall.Conn
	gone func()
	due  time.Time // when the watch starts

	mu      sync.Mutex
	stopped bool
	running chan struct{} // closed when watch returns; nil until it starts
}

// watches are the watches waiting for their time, and the goroutine that
// starts them, which runs while any waits.
var watches = watchList{waiting: map[*connWatch]struct{}{}, kick: make(chan struct{}, 1)}

type watchList struct {
	mu      sync.Mutex
	waiting map[*connWatch]struct{}
	running bool      // the goroutine runs
	next    time.Time // when it looks next
	kick    chan struct{}
}

func (l *watchList) add(w *connWatch) {
	l.mu.Lock()
	l.waiting[w] = struct{}{}
	start, sooner := !l.running, l.running && w.due.Before(l.next)
	if start {
		l.running, l.next = true, w.due
	}
	l.mu.Unlock()
	switch {
	case start:
		go l.run()
	case sooner:
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

// remove takes w off the list, and reports whether it was on it: its
// watch has not started.
func (l *watchList) remove(w *connWatch) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.waiting[w]
	delete(l.waiting, w)
	return ok
}

// run starts each watch at its time, until none waits.
func (l *watchList) run() {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-l.kick:
		}
		l.mu.Lock()
		now := time.Now()
		next := time.Time{}
		for w := range l.waiting {
			if w.due.After(now) {
				if next.IsZero() || w.due.Before(next) {
					next = w.due
				}
				continue
			}
			delete(l.waiting, w)
			go w.watch()
		}
		if next.IsZero() {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.next = next
		l.mu.Unlock()
		t.Reset(next.Sub(now))
	}
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
	raw, err := w.sc.SyscallConn()
	if err != nil {
		return
	}
	closed := false
	var b [1]byte
	_ = raw.Read(func(fd uintptr) bool {
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
	if watches.remove(w) {
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
