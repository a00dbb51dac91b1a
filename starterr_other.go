//go:build !windows

package main

import "os"

// startErr is where the tray's and the window's processes say why they
// could not start: stderr, which a terminal or the desktop's session log
// shows.
var startErr = os.Stderr

// startErrLog is the log of the process that writes to startErr.
var startErrLog string

// showStartError has nothing to show here: stderr already said it.
func showStartError(int) {}

// tellPerson is nil here: the tray writes what goes wrong to stderr and
// its log, as a terminal or the desktop's session log shows them.
var tellPerson func(title, text string)
