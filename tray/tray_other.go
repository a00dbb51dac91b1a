//go:build !(linux || freebsd || openbsd || netbsd) || android

package tray

import (
	"context"
	"errors"

	"fyne.io/systray"
)

// runSystray runs the system's event loop (systray.Run) on this goroutine,
// which must be the main one, and t's loop on another until it returns.
func runSystray(ctx context.Context, t *tray) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	done := make(chan error, 1)
	systray.Run(func() {
		close(ready)
		go func() {
			done <- t.loop(ctx)
			systray.Quit()
		}()
	}, nil)
	select {
	case <-ready:
		cancel()
		return <-done
	default:
		return errors.New("the tray ended before it started")
	}
}
