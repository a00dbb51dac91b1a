//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"fmt"

	"fyne.io/systray"
)

// runSystray starts fyne.io/systray, runs t's loop on this goroutine and
// removes the icon when it returns.
//
// Here fyne.io/systray is pure Go over D-Bus with no event loop of its own,
// so it runs "with an external loop": start exports the icon and menu and
// returns, and only then does the loop touch them. (With systray.Run the
// ready callback runs while start is still exporting, which loses the first
// icon and races on the library's globals.)
func runSystray(ctx context.Context, t *tray) (err error) {
	// Set before start, the title becomes the icon's Id for panels too.
	systray.SetTitle("mcptray")
	start, end := systray.RunWithExternalLoop(nil, nil)
	start()
	defer func() {
		// end closes the bus connection that start made; it panics when
		// start could not make one, which Available rules out but a bus
		// that goes away at the wrong moment does not.
		defer func() {
			if p := recover(); p != nil && err == nil {
				err = fmt.Errorf("removing the tray icon: %v", p)
			}
		}()
		end()
	}()
	return t.loop(ctx)
}
