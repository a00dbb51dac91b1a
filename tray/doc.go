// Package tray is mcptray's system tray: the icon, its tooltip and its menu,
// shown by the long-lived service process, plus the desktop notifications
// that ask a person to approve a server or to sign in, and the network
// proxy's questions (may a sandboxed server reach a host?), which the menu
// answers (questions.go).
//
// Build turns a service.Snapshot into a plain Menu value (pure, tested
// without any desktop), Notices decides which changes deserve a
// notification, and Run shows the menu with fyne.io/systray and keeps it up
// to date through a Service, the few service methods the tray needs.
// Available tells a caller beforehand whether a tray can be shown at all, so
// that mcptray can run without one instead of failing.
//
// tray must never import Fyne or anything that does: a Fyne process costs
// about 97 MB, and the tray lives in the process that runs all the time.
// It talks to fyne.io/systray and D-Bus directly. It never wires core
// together either (it is handed a Service), and core must never import tray.
package tray
