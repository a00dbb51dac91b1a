// Package assets holds mcptray's icons, embedded in the binary: the app icon
// and the tray icon for each overall state, drawn for light and for dark
// panels.
//
// It hands out PNG bytes and never imports Fyne or a tray library, so core and
// the command line can use it too; front ends wrap the bytes themselves (for
// example in fyne.NewStaticResource). The PNGs are drawn by ./gen; change the
// drawing there and run `go generate ./assets`, never edit the files by hand.
package assets

import (
	"embed"
	"fmt"
)

//go:generate go run ./gen -out .

//go:embed *.png
var files embed.FS

// The tray icon states, from best to worst as the tray shows them.
const (
	StateOK        = "ok"        // every approved server works
	StateAttention = "attention" // something needs the person: an approval, a sign-in
	StateFailing   = "failing"   // a server is failing
	StatePaused    = "paused"    // the person paused all servers
)

// States lists every state that TrayIcon knows.
var States = []string{StateOK, StateAttention, StateFailing, StatePaused}

// AppIcon returns the 512×512 application icon as PNG bytes.
func AppIcon() []byte {
	return mustRead("icon.png")
}

// TrayIcon returns the 64×64 tray icon for state (one of States) as PNG
// bytes, drawn for a dark panel when dark is true and for a light one
// otherwise. It returns nil for a state it does not know.
func TrayIcon(state string, dark bool) []byte {
	if !knownState(state) {
		return nil
	}
	return mustRead(TrayIconName(state, dark))
}

// TrayIconName returns the file name of TrayIcon(state, dark), such as
// "tray-ok-dark.png": a stable name for the front end's resource cache.
func TrayIconName(state string, dark bool) string {
	variant := "light"
	if dark {
		variant = "dark"
	}
	return fmt.Sprintf("tray-%s-%s.png", state, variant)
}

func knownState(state string) bool {
	for _, s := range States {
		if s == state {
			return true
		}
	}
	return false
}

// mustRead returns a fresh copy of an embedded file, so that a caller that
// changes the bytes cannot change anyone else's icon. A missing file is a
// build mistake that the package's tests catch, hence the panic.
func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("assets: %s is not embedded: %v", name, err))
	}
	return b
}
