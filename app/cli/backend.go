package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// backend is mcptray's API (core/service's, declared there once): the
// running instance over its control endpoint, or a service run in this
// process when none is running. Both give the same answers, so a command
// prints the same either way.
type backend = service.API

// connectNone and connectAll say which servers an in-process service
// starts: none (commands that read or edit the config) or all (status).
var (
	connectNone = []string{}
	connectAll  []string
)

// backend returns the running mcptray, or starts one in this process that
// connects only the servers in only (nil: all); close ends it.
func (c *cmdContext) backend(ctx context.Context, only []string) (b backend, close func(), err error) {
	if c.open != nil { // withSignIn holds one for every attempt
		return c.open, func() {}, nil
	}
	cl, err := control.DialAs(ctx, c.paths, control.CommandLine)
	if err == nil {
		c.logger().Debug("using the running mcptray", "pid", cl.PID)
		return cl, cl.Close, nil
	}
	if !errors.Is(err, control.ErrNotRunning) {
		return nil, nil, err
	}
	so, err := c.serviceOptions(only)
	if err != nil {
		return nil, nil, err
	}
	// A command that makes trust decisions records them, as the running
	// mcptray would (recording).
	core, err := instance.NewCore(ctx, so, instance.CoreOptions{Record: c.records,
		NoRecord: "the activity record could not be opened; this decision is not recorded"})
	if err != nil {
		return nil, nil, err
	}
	stop, err := core.Start(ctx)
	if err != nil {
		core.Close()
		return nil, nil, err
	}
	return core.Service, func() { stop() }, nil
}

// serviceOptions are the options of the service this process runs, for
// one command (connecting only the servers in only; nil: all) or for
// mcptray serve.
func (c *cmdContext) serviceOptions(only []string) (service.Options, error) {
	if c.Store == nil {
		return service.Options{}, errors.New("no keychain was given to the command line")
	}
	opts := service.FromEnvironment(c.Lookup)
	opts.Paths, opts.Lookup, opts.Store = c.paths, c.Lookup, c.Store
	opts.Logger, opts.Elicit, opts.Now, opts.Only = c.logger(), c.elicit, c.Now, only
	opts.Launcher, opts.HTTP, opts.SandboxProbe = c.Launcher, c.HTTP, c.Probe
	opts.Conn.BaseEnv = c.BaseEnv
	browser := opts.Browser
	if browser == nil {
		browser = service.SystemBrowser()
	}
	// Say so only when the browser really opens: a saved sign-in may do
	// without it.
	opts.Browser = func(ctx context.Context, u string) error {
		fmt.Fprintf(c.Stderr, "Opening your browser to sign in to %s…\n", sanitize.Line(displayName(c.signingIn)))
		return browser(ctx, u)
	}
	return opts, nil
}

// logger writes everything to stderr with MCPTRAY_DEBUG=1, and nothing
// otherwise: a command prints its output and, when it fails, one line
// saying why; mcptray's inner workings are not the person's business unless
// they ask.
func (c *cmdContext) logger() *slog.Logger {
	if c.log != nil {
		return c.log
	}
	if v, _ := c.Lookup("MCPTRAY_DEBUG"); v == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
