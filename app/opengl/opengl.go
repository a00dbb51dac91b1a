// Package opengl checks, before mcptray's window opens, that the computer
// offers what Fyne draws it with: an OpenGL 2.1 context. Where it does
// not (Windows' own display driver, which gives OpenGL 1.1 where the
// graphics card maker's is missing; a virtual machine without 3D
// acceleration; an X server without GLX) Fyne 2.7 does not say so: its
// window process waits forever with no window, or go-gl/glfw panics. The
// check says it instead, in words with a fix.
package opengl

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// Missing says the window cannot open: no OpenGL 2.1 context could be
// made. Cause is what the system said.
type Missing struct {
	Cause error
}

func (m *Missing) Error() string { return fmt.Sprintf("no OpenGL 2.1 context: %v", m.Cause) }

func (m *Missing) Unwrap() error { return m.Cause }

// Words says why the window cannot open, and what to do, in lines for a
// person.
func (m *Missing) Words() string {
	fix := "install your graphics card maker's driver, or Mesa's OpenGL drivers (on Debian and Ubuntu: sudo apt install libgl1-mesa-dri libglx-mesa0); on a remote or virtual display, use one with OpenGL (GLX)."
	if runtime.GOOS == "windows" {
		fix = "install your graphics card maker's driver (from Windows Update or the maker's website); in a virtual machine, turn on its 3D acceleration."
	}
	return fmt.Sprintf("It needs OpenGL 2.1 to draw, which this computer's graphics driver does not offer (%s).\nTo fix it: %s", said(m.Cause), fix)
}

// NoWindow says the window cannot open for a reason other than OpenGL:
// the system would not make a window at all (Wine with no desktop made
// for its display, a session with no desktop). Cause is what it said.
type NoWindow struct {
	Cause error
}

func (n *NoWindow) Error() string { return fmt.Sprintf("no window: %v", n.Cause) }

func (n *NoWindow) Unwrap() error { return n.Cause }

// Words says why the window cannot open, and what to do, in lines for a
// person.
func (n *NoWindow) Words() string {
	return fmt.Sprintf("The system would not make a window for it (%s).\nTo fix it: open it again from the tray; if that fails too, log out and in again.", said(n.Cause))
}

// Words says in lines for a person why the window cannot open, for an
// error Check returned.
func Words(err error) string {
	var m *Missing
	if errors.As(err, &m) {
		return m.Words()
	}
	var n *NoWindow
	if errors.As(err, &n) {
		return n.Words()
	}
	return fmt.Sprintf("It could not open (%v).", err)
}

// said is what the system said, put in brackets within a sentence: without
// the full stop it may end with.
func said(err error) string { return strings.TrimSuffix(strings.TrimSpace(err.Error()), ".") }
