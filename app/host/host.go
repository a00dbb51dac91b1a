// Package host is the tray's process: a running mcptray (core/instance:
// the service, the gateway, the control endpoint) with the tray and the
// launcher of the window in front of it.
//
// It imports no Fyne: the window is a process of its own (mcptray window),
// started here and reached through the control endpoint, so the process
// that stays in the tray all day holds no OpenGL driver. With no tray to
// show (no session bus, no StatusNotifier host) the window is the way in,
// and closing it quits mcptray.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/tray"
)

// Options configure Run.
type Options struct {
	Paths  service.Paths
	Store  secret.Store
	Logger *slog.Logger
	// Service carries the rest of the service's options (the browser, the
	// environment); Paths, Store, Logger and Follow are set by Run.
	Service service.Options
	// Window is the command that starts the window process, without its
	// flags: the running binary and "window" in the product.
	Window []string
	// Stdout gets the few lines a person who started mcptray from a
	// terminal reads, and Stderr why it could not start; nil means
	// nowhere and os.Stderr.
	Stdout io.Writer
	Stderr io.Writer
	// TrayAvailable says whether a tray can be shown; nil means
	// tray.Available.
	TrayAvailable func() error
	// Bundle is an MCP Bundle file (a full path) to open the install
	// dialog of: the file manager opened it with mcptray. A running
	// mcptray's window opens it; otherwise this one starts and does.
	Bundle string
	// AtLogin says the session started mcptray at login (the login entry
	// passes autostart.Arg): it goes to the tray without opening its
	// window, waits a little for a tray that comes up after it, and leaves
	// an mcptray that already runs alone.
	AtLogin bool
	// Tell shows a person, in a title and words, something that went
	// wrong while mcptray runs (its window could not open, or stopped),
	// and returns once they have read it; nil writes it to the log and
	// os.Stderr.
	Tell func(title, text string)
	// WindowLog is the window process's log, named when the window fails.
	WindowLog string
}

// trayWait is how long mcptray started at login waits for the desktop's
// tray, which may come up after the login entries have started.
const trayWait = 30 * time.Second

// Run runs mcptray until the person quits it or ctx ends, and returns the
// process's exit code. When mcptray is already running it asks that one to
// open its window and returns 0.
func Run(ctx context.Context, opts Options) int {
	log := opts.Logger
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.TrayAvailable == nil {
		opts.TrayAvailable = tray.Available
	}
	win := &windows{cmd: opts.Window, log: log, tell: opts.Tell, logFile: opts.WindowLog}
	so := opts.Service
	so.Paths, so.Store = opts.Paths, opts.Store
	inst, err := instance.Listen(instance.Options{
		Service: so, Logger: log, Window: true, OpenWindow: win.open, OpenBundle: win.openBundle,
	})
	if errors.Is(err, control.ErrRunning) {
		if opts.AtLogin {
			log.Debug("started at login, but mcptray runs already")
			return 0
		}
		return openRunning(ctx, opts)
	}
	if err != nil {
		fmt.Fprintf(opts.Stderr, "mcptray: %v\n", err)
		return 1
	}
	// Here, where this process is the one that runs: a second launch
	// writes nothing to the log.
	log.Info("mcptray starts in the tray", "pid", os.Getpid())
	defer log.Info("mcptray stopped")
	win.focus, win.pend = inst.Endpoint.FocusOn, inst.Endpoint.Pend
	defer func() {
		inst.Quit()
		win.close() // at once: the window has nothing to save
		inst.Close()
	}()
	if err := inst.Start(ctx); err != nil {
		fmt.Fprintf(opts.Stderr, "mcptray: %v\n", err)
		return 1
	}
	svc, quit := inst.Service, inst.Quit

	trayErr := opts.TrayAvailable()
	if trayErr != nil && opts.AtLogin {
		trayErr = waitForTray(inst.Context(), opts.TrayAvailable, trayWait, time.Second)
	}
	if trayErr != nil {
		// The window is the only way in: closing it quits.
		win.noTrayQuits(plainTrayProblem(trayErr), quit)
	}

	if trayErr != nil && opts.AtLogin {
		// Started at login with no tray: serve the apps quietly; opening
		// mcptray from the app menu shows its window.
		log.Warn("started at login with no tray; opening mcptray from the app menu shows its window", "tray", plainTrayProblem(trayErr))
		<-inst.Context().Done()
		return 0
	}
	if trayErr != nil {
		fmt.Fprintf(opts.Stdout, "mcptray: no tray (%s); its window is the way in, and closing it quits mcptray.\n", plainTrayProblem(trayErr))
		if err := win.show(control.WindowRequest{Bundle: opts.Bundle}); err != nil {
			fmt.Fprintf(opts.Stderr, "mcptray: %v\n", err)
			return 1
		}
		<-inst.Context().Done()
		return 0
	}
	if first := windowAtStart(opts); first || opts.Bundle != "" {
		if err := win.show(control.WindowRequest{Bundle: opts.Bundle}); err != nil {
			log.Warn("opening the window", "err", err)
		}
	}
	err = tray.Run(inst.Context(), trayService{svc}, tray.Options{
		Logger: log,
		OpenWindow: func(server string) {
			if err := win.open(server); err != nil {
				log.Warn("opening the window", "err", err)
			}
		},
		Quit:       quit,
		WindowOpen: inst.Endpoint.WindowOpen,
		Questions:  inst.Endpoint,
		Today:      inst.Service.ActivityToday,
		Sets:       inst.Service.Sets,
		SetTray: func(ctx context.Context, name string) error {
			_, err := inst.Service.SetTraySet(ctx, name)
			return err
		},
		Dark: tray.PrefersDark(),
	})
	if err != nil {
		fmt.Fprintf(opts.Stderr, "mcptray: %v\n", err)
		return 1
	}
	return 0
}

// openRunning asks the running mcptray to open its window.
func openRunning(ctx context.Context, opts Options) int {
	cl, err := control.Dial(ctx, opts.Paths)
	if err != nil {
		fmt.Fprintf(opts.Stderr, "mcptray: it is already running, but did not answer: %v\n", err)
		return 1
	}
	defer cl.Close()
	open := func() error { return cl.OpenWindow(ctx, "") }
	if opts.Bundle != "" {
		open = func() error { return cl.OpenBundle(ctx, opts.Bundle) }
	}
	if err := open(); err != nil {
		var serr *service.Error
		if errors.As(err, &serr) && serr.Code == service.NotAllowed {
			// mcptray serve, perhaps started by an app through mcptray
			// stdio: it has no tray and no window to open.
			fmt.Fprintln(opts.Stderr, "mcptray: it is already running in the background, without a tray or a window (mcptray serve, perhaps started by one of your apps).")
			fmt.Fprintln(opts.Stderr, "mcptray: to have it in the tray: mcptray quit, then start mcptray again; your apps use it once they reconnect.")
			return 1
		}
		fmt.Fprintf(opts.Stderr, "mcptray: it is already running, but could not open its window: %v\n", err)
		return 1
	}
	if opts.Bundle != "" {
		fmt.Fprintln(opts.Stdout, "mcptray is already running; its window opens the bundle.")
	} else {
		fmt.Fprintln(opts.Stdout, "mcptray is already running; its window opens.")
	}
	return 0
}

// windowAtStart says whether mcptray opens its window as it starts with a
// tray: on the very first launch, never at login.
func windowAtStart(opts Options) bool { return !opts.AtLogin && firstLaunch(opts.Paths) }

// waitForTray asks available every poll until it says yes, for at most
// wait, and returns its last answer.
func waitForTray(ctx context.Context, available func() error, wait, poll time.Duration) error {
	err := available()
	if err == nil {
		return nil
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return err
		case <-deadline.C:
			return err
		case <-tick.C:
			if err = available(); err == nil {
				return nil
			}
		}
	}
}

// firstLaunch reports whether mcptray has never run for this person, and
// remembers that it now has.
func firstLaunch(p service.Paths) bool {
	mark := filepath.Join(p.Dir(), "launched")
	if _, err := os.Stat(mark); err == nil {
		return false
	}
	if err := os.MkdirAll(p.Dir(), 0o700); err == nil {
		_ = os.WriteFile(mark, nil, 0o600)
	}
	return true
}

// plainTrayProblem says in a few words why there is no tray.
func plainTrayProblem(err error) string { return err.Error() }

// trayService lets the tray sign in with the config's settings, and the
// activity record say the tray signed in.
type trayService struct{ *service.Service }

func (b trayService) SignIn(ctx context.Context, name string) error {
	return b.Service.SignIn(service.DecidedBy(ctx, "the tray"), name, service.SignInOptions{})
}
