// Package window is mcptray's window: the Fyne process that `mcptray window`
// runs. The command line lives in app/cli.
//
// The window is a client of the running mcptray (core/service, reached
// through core/control): it shows the service's Snapshot, follows its change
// notices and focus requests, and asks it to act. It never wires core
// together, so closing it, or its crashing, stops no server. The one config
// file it reads is another app's, when the person imports a server from it:
// the entry is copied as written, through the service's Add. The data the
// running mcptray keeps it reads only through its API, as it reads the
// Snapshot: the activity record (Activity, ActivityNames, VerifyActivity)
// and the MCP Registry's public catalogue (SearchCatalogue), whose copy
// the running mcptray keeps; it never opens the record's file or the
// catalogue's. It installs from the catalogue through Add too. An MCP
// Bundle it never opens itself: the service's InstallBundle reads and
// checks the file, and the window shows what that says and asks for.
// Every change that arrives from a goroutine is applied inside fyne.Do.
package window

import (
	"context"
	"log/slog"
	"os"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/app/autostart"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/service"
)

// quitGrace is how long the window may take to close before its process
// exits without it.
const quitGrace = 5 * time.Second

// ID is the application's unique id (FyneApp.toml says the same).
const ID = "dev.mcptray.mcptray"

// Remote is the running mcptray as the window reaches it from its own
// process: its API (core/service's, declared there once), and what the
// running mcptray's control endpoint adds for its window alone. A
// *control.Client is one.
type Remote interface {
	service.API

	// FocusRequests sends what to show (a server, a bundle's install
	// dialog, or nothing) each time the running mcptray wants the window
	// to come forward.
	FocusRequests(ctx context.Context) (<-chan control.WindowRequest, error)
	// Questions sends the servers' questions for the person, and a Gone
	// one when a question waits no longer; it closes when ctx ends.
	Questions(ctx context.Context) (<-chan control.Question, error)
	// Answer answers a question: accept with content, decline or cancel.
	Answer(ctx context.Context, id string, result mcp.ElicitationResult) error
	// GatewayStatus says how the gateway's HTTP face is doing.
	GatewayStatus(ctx context.Context) (gateway.Status, error)
}

// The window's Remote is, in mcptray, a client of the running service.
var _ Remote = (*control.Client)(nil)

// Options are what Run needs besides its Remote. Every field
// may be left zero.
type Options struct {
	// Server is the server to show first ("" for none).
	Server string
	// Bundle is an MCP Bundle file to open the install dialog of, once
	// the window shows ("" for none).
	Bundle string
	// TrayProblem, when not "", says there is no tray, and why: the window
	// is then the only way to use mcptray, and closing it quits mcptray.
	TrayProblem string
	// Quit asks the running mcptray to stop. It is called, off the UI
	// goroutine, when the window closes while there is no tray; it may
	// block until the service has stopped.
	Quit func()
	// LogFile is the log of mcptray in the tray, which Settings' Show log…
	// shows; "" for none.
	LogFile string
	// Autostart is the person's login entry, which Settings turns on and
	// off; nil says it cannot be set up here.
	Autostart *autostart.Switch
	// Home is the person's home folder, of which the install form says
	// what a server may reach; "" is the system's.
	Home string
}

// Run opens the window and returns when the person closes it, ctx
// ends, or the running mcptray goes away. It returns the process's exit
// code: 1 when the running mcptray could not be reached at all.
func Run(ctx context.Context, logger *slog.Logger, b Remote, opts Options) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	notices, err := b.Subscribe(ctx)
	if err != nil {
		logger.Error("the window cannot follow the running mcptray", "err", err)
		return 1
	}
	focus, err := b.FocusRequests(ctx)
	if err != nil {
		// The window still works; a second launch just cannot bring it
		// forward.
		logger.Warn("the window will not come forward when asked", "err", err)
		focus = nil
	}

	a := fyneapp.NewWithID(ID)
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.AppIcon()))
	w := a.NewWindow("mcptray")
	v := newWindow(ctx, logger, a, w, b, opts)
	w.Resize(fyne.NewSize(960, 620))
	v.quit, v.leave = quitting(logger, v.do, a.Quit, quitGrace, func() { os.Exit(0) })

	questions, err := b.Questions(ctx)
	if err != nil {
		// The window still works; servers' questions get their defaults.
		logger.Warn("the window will not show servers' questions", "err", err)
		questions = nil
	}
	go v.follow(ctx, notices)
	if questions != nil {
		go v.followQuestions(ctx, questions)
	}
	if focus != nil {
		go v.followFocus(ctx, focus)
	}
	go func() {
		<-ctx.Done()
		v.leave()
	}()
	w.ShowAndRun()
	return 0
}
