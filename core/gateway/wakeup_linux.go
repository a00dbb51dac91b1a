//go:build linux

package gateway

import (
	"encoding/binary"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/mcptray/mcptray/core/rawio"
)

// A POST's handler waits for its answer, which the goroutine that reads
// the server's output hands it. Handed over on a channel, the wake-up
// readied the handler and, with the other core idle, woke a second thread
// (a futex call) to run it: on this kind of machine that cost a call about
// 8 µs of CPU on the answer's way, which the fasthttp relay, whose handler
// the poller wakes, does not pay (bench/README.md). An eventfd in the
// poller instead is one write; the reader's thread then finds the handler
// ready in the poller as it goes to wait for the server's next line, and
// runs it itself.

// maxWakeFDs bounds the eventfds the POSTs in flight hold; the ones past
// it wait on a channel, as before.
const maxWakeFDs = 64

// wakeFDs are the eventfds not in use, and how many there are in all.
var wakeFDs struct {
	mu   sync.Mutex
	free []*wakeFD
	made int
}

// wakeFD is an eventfd read and written through the poller.
type wakeFD struct {
	f      *os.File
	r      io.Reader
	w      io.Writer
	broken atomic.Bool // a read or write failed: not to be used again
}

// takeWakeFD returns an eventfd to wait on; nil when the bound is reached
// or none can be made.
func takeWakeFD() *wakeFD {
	wakeFDs.mu.Lock()
	defer wakeFDs.mu.Unlock()
	if n := len(wakeFDs.free); n > 0 {
		w := wakeFDs.free[n-1]
		wakeFDs.free = wakeFDs.free[:n-1]
		return w
	}
	if wakeFDs.made >= maxWakeFDs {
		return nil
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "wakeup")
	r, w := rawio.Reader(f), rawio.Writer(f)
	if r == io.Reader(f) || w == io.Writer(f) {
		f.Close() // not in the poller: a read would block its thread
		return nil
	}
	wakeFDs.made++
	return &wakeFD{f: f, r: r, w: w}
}

// put gives w back once its one wake-up was read, or closes it.
func (w *wakeFD) put() {
	wakeFDs.mu.Lock()
	defer wakeFDs.mu.Unlock()
	if w.broken.Load() {
		wakeFDs.made--
		w.f.Close()
		return
	}
	wakeFDs.free = append(wakeFDs.free, w)
}

// wakeup is a one-time signal: wake may be called any number of times,
// from any goroutine, without waiting; wait returns once it was.
type wakeup struct {
	woken    atomic.Bool
	fd       *wakeFD       // nil: ch
	ch       chan struct{} // closed by wake when fd is nil
	released bool          // fd is back with the others (the waiter's own)
}

func (u *wakeup) init() {
	if u.fd = takeWakeFD(); u.fd == nil {
		u.ch = make(chan struct{})
	}
}

// wake wakes wait; only the first call does anything.
func (u *wakeup) wake() {
	if u.woken.Swap(true) {
		return
	}
	if u.fd == nil {
		close(u.ch)
		return
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	if _, err := u.fd.w.Write(one[:]); err != nil {
		// Cannot happen to an eventfd that counts to one; should it,
		// closing it ends the wait all the same.
		u.fd.broken.Store(true)
		u.fd.f.Close()
	}
}

// wait waits for wake, then lets the eventfd go for another's use.
func (u *wakeup) wait() {
	if u.fd == nil {
		<-u.ch
		return
	}
	var b [8]byte
	if _, err := io.ReadFull(u.fd.r, b[:]); err != nil {
		u.fd.broken.Store(true)
	}
	u.release()
}

// release lets the eventfd go when wait will not be called (the request
// was not taken, and wake will not be called either).
func (u *wakeup) release() {
	if u.fd != nil && !u.released {
		u.released = true
		u.fd.put()
	}
}
