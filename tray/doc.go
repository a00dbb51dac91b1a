// Package tray turns a snapshot of mcptray's servers into the system tray's
// icon and menu (a *fyne.Menu).
//
// It owns no loop and starts no goroutine: Fyne's desktop.App runs the tray
// (fyne.io/systray, the maintained fork of getlantern/systray) inside its own
// event loop, and this package only computes what that tray shows. Its label
// helpers are pure functions.
package tray
