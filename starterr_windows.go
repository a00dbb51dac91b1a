package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/windows"
)

// startErr is where the tray's and the window's processes say why they
// could not start. mcptray.exe is a GUI program: started from Explorer or
// the Start menu it has no console and no stderr, and a line written there
// is lost. startErr keeps what it is told for a message box
// (showStartError), and passes it on to stderr when there is one.
var startErr = &startErrors{stderr: stderrIfAny()}

// startErrLog is the log of the process that writes to startErr, named
// in the message box.
var startErrLog string

// startErrors keeps what is written to it, and copies it to stderr.
type startErrors struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	stderr io.Writer // nil without one
}

func (e *startErrors) Write(b []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf.Write(b)
	if e.stderr != nil {
		_, _ = e.stderr.Write(b)
	}
	return len(b), nil
}

// stderrIfAny is os.Stderr when this process has a standard error
// (started from a terminal with 2> or by another program), nil when it
// has none (started from Explorer).
func stderrIfAny() io.Writer {
	h, err := windows.GetStdHandle(windows.STD_ERROR_HANDLE)
	if err != nil || h == 0 || h == windows.InvalidHandle {
		return nil
	}
	if _, err := windows.GetFileType(h); err != nil {
		return nil
	}
	return os.Stderr
}

// showStartError shows, when mcptray could not start (code not 0) and has
// no stderr for a person to read, what it would have written there in a
// message box, with where its log is. It returns once the person closes
// the box.
func showStartError(code int) {
	startErr.mu.Lock()
	text := strings.TrimSpace(startErr.buf.String())
	startErr.mu.Unlock()
	if code == 0 || text == "" || startErr.stderr != nil {
		return
	}
	// The box's title names mcptray: each line's "mcptray: " (a
	// terminal's way to say who speaks) would only say it again, and
	// what follows it begins a sentence of its own.
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "mcptray: "); ok {
			r, size := utf8.DecodeRuneInString(rest)
			lines[i] = string(unicode.ToUpper(r)) + rest[size:]
		}
	}
	text = strings.Join(lines, "\n")
	if startErrLog != "" {
		text += "\n\nmcptray's log is at " + startErrLog
	}
	tellPerson("mcptray could not start", text)
}

// tellPerson shows text in a message box titled title, and returns once
// the person closes it: how the tray says what went wrong while it runs
// (its window could not open), as no one reads its stderr.
func tellPerson(title, text string) {
	b, err1 := windows.UTF16PtrFromString(text)
	t, err2 := windows.UTF16PtrFromString(title)
	if err1 != nil || err2 != nil {
		return
	}
	_, _ = windows.MessageBox(0, b, t, windows.MB_OK|windows.MB_ICONERROR|windows.MB_SETFOREGROUND)
}
