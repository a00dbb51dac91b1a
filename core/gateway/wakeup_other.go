//go:build !linux

package gateway

import "sync/atomic"

// wakeup is a one-time signal: wake may be called any number of times,
// from any goroutine, without waiting; wait returns once it was. (On
// Linux it is an eventfd in the poller: wakeup_linux.go says why.)
type wakeup struct {
	woken atomic.Bool
	ch    chan struct{}
}

func (u *wakeup) init() { u.ch = make(chan struct{}) }

func (u *wakeup) wake() {
	if !u.woken.Swap(true) {
		close(u.ch)
	}
}

func (u *wakeup) wait() { <-u.ch }

func (u *wakeup) release() {}
