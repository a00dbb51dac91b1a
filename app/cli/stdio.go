package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/service"
)

// startWait bounds how long mcptray stdio waits for an mcptray it started
// to answer.
const startWait = 20 * time.Second

// runStdio is mcptray stdio: an MCP server on stdin and stdout that an app
// starts as a command. It opens a session with the running mcptray's
// gateway over the control socket (the socket's owner check is the
// authentication, so no token lands in the app's config), starting mcptray
// without a window when none runs. Where it can, it hands its stdin and
// stdout to the running mcptray, which then talks to the app directly, and
// only waits; otherwise it copies the messages both ways. With --app NAME
// (as mcptray connect writes it) the gateway knows the app by NAME, not by
// what it says of itself, and serves it only the servers NAME gets.
func runStdio(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("stdio", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	app := fs.String("app", "", "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("stdio takes no arguments but --app NAME")
	}
	if *app != "" {
		if err := service.CheckAppName(*app); err != nil {
			return usagef("%v", err)
		}
	}
	// Handed over, the app's stdin and stdout are read and written by the
	// running mcptray itself: one process fewer on every message's way.
	stdin, _ := c.Stdin.(*os.File)
	stdout, _ := c.Stdout.(*os.File)
	if !control.CanHandOver(stdin) || !control.CanHandOver(stdout) {
		stdin, stdout = nil, nil
	}
	st, err := control.OpenStreamAs(ctx, c.paths, *app, stdin, stdout)
	if errors.Is(err, control.ErrNotRunning) {
		// None runs: start one, then ask again. When one runs, as it
		// mostly does, the session is the only connection made.
		cl, rerr := c.reachRunning(ctx)
		if rerr != nil {
			return rerr
		}
		cl.Close()
		st, err = control.OpenStreamAs(ctx, c.paths, *app, stdin, stdout)
	}
	if err != nil {
		return err
	}
	if stdin != nil {
		err = st.Wait()
	} else {
		err = st.Copy(c.Stdin, c.Stdout)
	}
	if errors.Is(err, control.ErrStopping) {
		return errors.New("the running mcptray stopped; the app will start mcptray again when it reconnects")
	}
	return err
}

// reachRunning connects to the running mcptray, starting one in the
// background when none runs: as the person's session would (planStart),
// whatever the app left out of this process's environment.
func (c *cmdContext) reachRunning(ctx context.Context) (*control.Client, error) {
	cl, err := control.Dial(ctx, c.paths)
	if !errors.Is(err, control.ErrNotRunning) {
		return cl, err
	}
	plan := planStart(ctx, os.Environ(), thisSession(runtime.GOOS))
	cl, err = c.startAndDial(ctx, plan)
	if err != nil && plan.args[0] != "serve" {
		// The tray could not start on the desktop found (one gone, or
		// not this person's): serve the app without it.
		plan.args = []string{"serve"}
		cl, err = c.startAndDial(ctx, plan)
	}
	return cl, err
}

// startAndDial starts mcptray as plan says and waits until it answers.
func (c *cmdContext) startAndDial(ctx context.Context, plan startPlan) (*control.Client, error) {
	exited, logPath, err := c.startServe(plan)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startWait)
	defer cancel()
	// There is no event for "the socket is there": look again briefly,
	// until the deadline or the started mcptray's end.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		cl, err := control.Dial(ctx, c.paths)
		if !errors.Is(err, control.ErrNotRunning) {
			return cl, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the mcptray started for this app did not answer within %s; its log is %s", startWait, logPath)
		case <-exited:
			// Another mcptray may have won the race to start: that is
			// as good.
			if cl, err := control.Dial(ctx, c.paths); err == nil {
				return cl, nil
			}
			return nil, fmt.Errorf("the mcptray started for this app stopped at once; its log is %s", logPath)
		case <-tick.C:
		}
	}
}

// startServe starts mcptray as plan says, in a session of its own, so
// that it outlives this app's connection, with its output in a log file
// that first says what was started and with which environment (names, not
// values: the environment may hold secrets).
func (c *cmdContext) startServe(plan startPlan) (exited <-chan struct{}, logPath string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("finding mcptray's own program to start it: %w", err)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil, "", fmt.Errorf("finding a folder for mcptray's log: %w", err)
	}
	dir = filepath.Join(dir, "mcptray")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("creating %s: %w", dir, err)
	}
	logPath = filepath.Join(dir, "serve.log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("opening mcptray's log: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(f, "--- %s: started by mcptray stdio: %s\n", time.Now().Format(time.RFC3339), plan.describe())
	cmd := exec.Command(exe, plan.args...)
	cmd.Env = plan.env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("starting mcptray: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, logPath, nil
}
