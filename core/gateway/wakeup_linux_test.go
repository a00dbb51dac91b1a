//go:build linux

package gateway

import (
	"errors"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// wakeFDsInUse is how many of the eventfds made are not back with the
// others.
func wakeFDsInUse() int {
	wakeFDs.mu.Lock()
	defer wakeFDs.mu.Unlock()
	return wakeFDs.made - len(wakeFDs.free)
}

// A wake-up called several times, before its wait and after it, is read
// once, and the eventfd goes back with nothing left in it: the next
// request's wait does not return on an earlier request's wake-up.
func TestWakeupLeavesNothingForTheNext(t *testing.T) {
	var u wakeup
	u.init()
	if u.fd == nil {
		t.Fatal("no eventfd for the first wake-up")
	}
	fd := u.fd
	for range 3 {
		u.wake() // the request's answer, and messages before it
	}
	u.wait()
	u.wake() // a message that comes after the answer

	var next wakeup
	next.init()
	defer func() { next.wake(); next.wait() }()
	if next.fd != fd {
		t.Fatal("the eventfd was not given back for the next request")
	}
	var b [8]byte
	n, err := fdRead(fd, b[:])
	if !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("the next request's eventfd holds a wake-up it was not given (read %d bytes, %v)", n, err)
	}
}

// A request not taken (release without wake nor wait) gives its eventfd
// back, clean.
func TestWakeupReleased(t *testing.T) {
	before := wakeFDsInUse()
	var u wakeup
	u.init()
	u.release()
	if got := wakeFDsInUse(); got != before {
		t.Fatalf("%d eventfds in use after a release, %d before", got, before)
	}
}

// More POSTs waiting at once than there are eventfds wait on channels,
// and every one is woken; afterwards no eventfd is held.
func TestWakeupManyWaiting(t *testing.T) {
	const n = 3 * maxWakeFDs
	before := wakeFDsInUse()
	us := make([]*wakeup, n)
	for i := range us {
		us[i] = new(wakeup)
		us[i].init()
	}
	if got := wakeFDsInUse(); got > maxWakeFDs {
		t.Fatalf("%d eventfds in use, more than %d", got, maxWakeFDs)
	}
	var wg sync.WaitGroup
	for _, u := range us {
		wg.Add(2)
		go func() { defer wg.Done(); u.wait() }()
		go func() { defer wg.Done(); u.wake(); u.wake() }()
	}
	wg.Wait()
	if got := wakeFDsInUse(); got != before {
		t.Fatalf("%d eventfds still held once every wait returned, %d before", got, before)
	}
}

// A wake-up that comes as its wait begins is never missed: its wait
// returns, whichever of the two goes first, over many uses of the same
// eventfds.
func TestWakeupRacesItsWait(t *testing.T) {
	for i := range 5000 {
		var u wakeup
		u.init()
		go u.wake()
		waited := make(chan struct{})
		go func() { u.wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			t.Fatalf("use %d: the wait missed its wake-up", i)
		}
	}
}

func fdRead(w *wakeFD, b []byte) (n int, err error) {
	raw, err := w.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	if cerr := raw.Control(func(fd uintptr) { n, err = unix.Read(int(fd), b) }); cerr != nil {
		return 0, cerr
	}
	return n, err
}
