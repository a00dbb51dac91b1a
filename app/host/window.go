package host

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// windows starts the window process and keeps track of it: one window at
// a time, brought forward rather than started twice. When it ends with an
// error that the tray did not cause (it could not open, or crashed), the
// person is told, in words: the window's process may have had no way to
// say it.
type windows struct {
	cmd []string
	log *slog.Logger
	// tell shows a person why the window failed, and returns once they
	// have read it; nil writes it to stderr and the log.
	tell func(title, text string)
	// logFile is the window's log, named when it fails ("" for none).
	logFile string
	// stderr is where the window's output goes on to; nil is os.Stderr.
	stderr io.Writer
	// focus asks an open window to come forward; false when none listens.
	// Set before the window can be opened.
	focus func(control.WindowRequest) bool
	// pend keeps a request for the window that is starting
	// (control.Endpoint.Pend).
	pend func(control.WindowRequest)

	mu      sync.Mutex
	noTray  string        // why there is no tray, passed to the window; "" with one
	onExit  func()        // called when the window process ends
	proc    *exec.Cmd     // the window process while it runs
	done    chan struct{} // closed when proc has ended
	closing bool          // the tray ends the window: its end is no failure
}

// noTrayQuits says there is no tray, for reason: the window says so, and
// closing it calls quit.
func (w *windows) noTrayQuits(reason string, quit func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noTray, w.onExit = reason, quit
}

// open brings the window forward at server, or starts it.
func (w *windows) open(server string) error {
	return w.show(control.WindowRequest{Server: server})
}

// openBundle brings the window forward at the install dialog of the MCP
// Bundle file, or starts it there.
func (w *windows) openBundle(file string) error {
	return w.show(control.WindowRequest{Bundle: file})
}

// show brings the window forward at what req says, or starts it there.
func (w *windows) show(req control.WindowRequest) error {
	if w.focus != nil && w.focus(req) {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.proc != nil {
		// Starting: it shows itself, and gets what was asked for
		// meanwhile once it follows focus requests.
		if w.pend != nil && req.Bundle != "" {
			w.pend(req)
		}
		return nil
	}
	if len(w.cmd) == 0 {
		return errors.New("this mcptray cannot open a window")
	}
	args := append([]string{}, w.cmd[1:]...)
	if req.Server != "" {
		args = append(args, "--server", req.Server)
	}
	if req.Bundle != "" {
		args = append(args, "--bundle", req.Bundle)
	}
	if w.noTray != "" {
		args = append(args, "--no-tray", w.noTray)
	}
	cmd := exec.Command(w.cmd[0], args...)
	out := &windowOutput{to: w.stderr}
	if out.to == nil {
		out.to = os.Stderr
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	w.proc, w.done, w.closing = cmd, done, false
	tray := w.noTray == ""
	go func() {
		err := cmd.Wait()
		w.log.Debug("the window closed", "err", err)
		w.mu.Lock()
		if w.proc == cmd {
			w.proc = nil
		}
		onExit, failed := w.onExit, err != nil && !w.closing
		w.mu.Unlock()
		if failed {
			// Before done: close, which waits for done, finds no
			// process, so a box open here keeps no quit waiting.
			w.failed(windowFailure(out.String(), err, tray, w.logFile))
		}
		close(done)
		if onExit != nil {
			onExit()
		}
	}()
	return nil
}

// failed tells the person that the window failed, and why.
func (w *windows) failed(title, text string) {
	w.log.Warn(title, "why", text)
	if w.tell != nil {
		w.tell(title, text)
		return
	}
	fmt.Fprintf(os.Stderr, "mcptray: %s: %s\n", title, text)
}

// close ends the window process, if one runs, and waits a moment for it.
func (w *windows) close() {
	w.mu.Lock()
	cmd, done := w.proc, w.done
	w.onExit = nil // quitting already
	w.closing = true
	w.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = terminate(cmd.Process)
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
