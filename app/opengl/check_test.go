//go:build linux

package opengl

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// xvfb starts a virtual X display with extra flags and returns its name.
func xvfb(t *testing.T, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("needs Xvfb (scripts/deps.sh installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", append([]string{"-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp", "-noreset"}, flags...)...)
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { _ = x.Process.Kill(); _ = x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not say its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// TestCheck: on a display with OpenGL (Xvfb's GLX over Mesa) the check
// passes, and passes again (it leaves GLFW as it found it); on one
// without GLX, or whose driver offers only OpenGL 1.1 (as Windows' own
// display driver does), it fails with words that name OpenGL 2.1 and a
// fix. Not parallel: GLFW and DISPLAY are the process's.
func TestCheck(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	t.Setenv("DISPLAY", xvfb(t))
	for i := range 2 {
		if err := Check(); err != nil {
			t.Fatalf("with OpenGL, check %d: %v", i+1, err)
		}
	}

	t.Setenv("MESA_GL_VERSION_OVERRIDE", "1.1")
	missing(t, "a driver of OpenGL 1.1", "Version")
	os.Unsetenv("MESA_GL_VERSION_OVERRIDE")

	t.Setenv("DISPLAY", xvfb(t, "-extension", "GLX"))
	missing(t, "no GLX", "GLX")

	// A display that is not there: GLFW cannot start, which go-gl/glfw
	// only logs. Not OpenGL's fault, and said so.
	t.Setenv("DISPLAY", ":65000")
	err := Check()
	var n *NoWindow
	if !errors.As(err, &n) || !strings.Contains(n.Cause.Error(), "X11") {
		t.Fatalf("with no display: %v, not a *NoWindow naming X11", err)
	}
	if w := Words(err); !strings.Contains(w, "would not make a window") || strings.Contains(w, "OpenGL") {
		t.Errorf("with no display, the words: %s", w)
	}
	t.Logf("with no display: %s", Words(err))
}

// missing checks that Check fails with a *Missing whose cause mentions
// cause and whose words name OpenGL 2.1 and a fix.
func missing(t *testing.T, what, cause string) {
	t.Helper()
	err := Check()
	var m *Missing
	if !errors.As(err, &m) {
		t.Fatalf("with %s: %v, not a *Missing", what, err)
	}
	t.Logf("with %s: %v", what, err)
	if !strings.Contains(m.Cause.Error(), cause) {
		t.Errorf("with %s: the cause does not mention %q: %v", what, cause, m.Cause)
	}
	if w := Words(err); !strings.Contains(w, "OpenGL 2.1") || !strings.Contains(w, "To fix it: install") {
		t.Errorf("with %s, the words: %s", what, w)
	}
}
