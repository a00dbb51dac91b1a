//go:build !darwin

package opengl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// Check makes, hidden, a window with the OpenGL 2.1 context Fyne's window
// asks for, and closes it and GLFW again, so that Fyne starts afresh. It
// returns a *Missing when none can be made, a *NoWindow when GLFW could
// not start at all (it makes a window of its own as it starts). Call it
// from the goroutine
// that runs Fyne (the main one, locked to the main thread), before Fyne's
// window is made.
func Check() (err error) {
	defer func() {
		// go-gl/glfw panics on the errors it does not expect from a call
		// (no pixel format; GLFW not initialised, when its initialisation
		// failed with an error it only logs).
		if r := recover(); r != nil {
			cause, ok := r.(error)
			if !ok {
				cause = fmt.Errorf("%v", r)
			}
			err = &Missing{Cause: cause}
		}
	}()
	// go-gl/glfw only logs a platform error of glfwInit's (Win32: Failed
	// to create helper window), and returns none: read it from the log.
	var said bytes.Buffer
	prev := log.Writer()
	log.SetOutput(io.MultiWriter(prev, &said))
	err = glfw.Init()
	log.SetOutput(prev)
	if err != nil {
		return &Missing{Cause: err}
	}
	if _, after, ok := strings.Cut(said.String(), "PlatformError: "); ok {
		line, _, _ := strings.Cut(after, "\n")
		return &NoWindow{Cause: errors.New(strings.TrimSpace(line))}
	}
	defer glfw.Terminate()
	glfw.WindowHint(glfw.Visible, glfw.False)
	glfw.WindowHint(glfw.ContextVersionMajor, 2)
	glfw.WindowHint(glfw.ContextVersionMinor, 1)
	w, err := glfw.CreateWindow(1, 1, "mcptray", nil, nil)
	if err != nil {
		return &Missing{Cause: err}
	}
	if w == nil {
		// A platform error, which go-gl/glfw logs and does not return.
		return &Missing{Cause: errors.New("the system could not make an OpenGL window")}
	}
	w.Destroy()
	return nil
}
