package window

import (
	"io"
	"log/slog"
	"testing"
	"time"
)

// stuckDo is a UI goroutine that never runs what it is asked.
func stuckDo(func()) {}

// When mcptray quits while the window's UI goroutine is stuck, the
// window's process ends all the same, after the grace.
func TestLeaveEndsTheProcessWhenTheUIIsStuck(t *testing.T) {
	exited := make(chan struct{})
	_, leave := quitting(slog.New(slog.NewTextHandler(io.Discard, nil)), stuckDo, func() {
		t.Error("the window was closed by a stuck UI goroutine")
	}, 10*time.Millisecond, func() { close(exited) })
	leave()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not end: a stuck UI goroutine keeps it after mcptray quit")
	}
}

// follow leaves (not only asks the UI goroutine to quit) once the running
// mcptray goes away.
func TestFollowLeavesWhenMcptrayStops(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	left := make(chan struct{}, 1)
	h.do(func() { h.v.leave = func() { left <- struct{}{} } })
	close(h.b.notices)
	select {
	case <-left:
	case <-time.After(10 * time.Second):
		t.Fatal("the window did not leave when mcptray stopped")
	}
}

// quit closes the window; leave asks the UI goroutine for quit.
func TestQuitClosesTheWindow(t *testing.T) {
	closed := make(chan struct{}, 4)
	quit, leave := quitting(slog.New(slog.NewTextHandler(io.Discard, nil)), func(f func()) { f() },
		func() { closed <- struct{}{} }, time.Hour, func() { t.Error("exited") })
	leave()
	quit()
	for range 2 {
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatal("the window was not closed")
		}
	}
}
