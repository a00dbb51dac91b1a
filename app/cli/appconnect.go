package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// apps returns the running mcptray, or a service in this process, for the
// apps' actions.
func (c *cmdContext) apps(ctx context.Context) (backend, func(), error) {
	return c.backend(ctx, connectNone)
}

// runConnect writes the gateway (mcptray stdio) into an app's config, so
// that the app uses every server mcptray runs. With --move (or the
// person's yes on a terminal) it also takes the app's own copies of
// servers mcptray runs out of its config.
func runConnect(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	move := fs.Bool("move", false, "")
	if err := fs.Parse(reorder(args)); err != nil {
		return usagef("%v", err)
	}
	src, err := c.appArg("connect", fs.Args())
	if err != nil {
		return err
	}
	b, closeFn, err := c.apps(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	req := service.ConnectRequest{App: src.App}
	if movable := c.movable(ctx, b, src); len(movable) > 0 {
		list := strings.Join(movable, ", ")
		switch {
		case *move:
			req.Move = movable
		case c.Interactive && c.Stdin != nil:
			fmt.Fprintf(c.Stdout, "%s's config also has servers mcptray runs: %s.\n", src.App, list)
			fmt.Fprintf(c.Stdout, "Take these out of %s's config? mcptray runs them for it through the gateway. [y/N] ", src.App)
			line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
				req.Move = movable
			}
		default:
			defer fmt.Fprintf(c.Stdout, "%s's config also has servers mcptray runs (%s); it would see their tools twice. mcptray connect %s --move takes them out of its config.\n",
				src.App, list, appKeyOf(src))
		}
	}
	res, err := b.ConnectApp(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Connected %s: %s now starts %q as the server %q (the file as it was is %s.bak).\n",
		src.App, c.home(src.File), res.Command, service.GatewayEntry, c.home(src.File))
	if len(res.Moved) > 0 {
		fmt.Fprintf(c.Stdout, "Took %s out of %s's config: mcptray runs them for it.\n", strings.Join(res.Moved, ", "), src.App)
	}
	fmt.Fprintf(c.Stdout, "Quit %s fully and open it again to use it.\n", src.App)
	return nil
}

// movable names the servers of src's config that mcptray runs from
// another config.
func (c *cmdContext) movable(ctx context.Context, b backend, src service.Source) []string {
	apps, err := b.Apps(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range apps {
		if a.Name == src.App {
			for _, m := range a.Movable {
				out = append(out, sanitize.Line(m.Name))
			}
		}
	}
	return out
}

// appKeyOf is src's app as the command line names it.
func appKeyOf(src service.Source) string {
	return strings.ToLower(strings.ReplaceAll(src.App, " ", "-"))
}

// reorder puts flags before the app's name, so that both
// "connect cursor --move" and "connect --move cursor" work.
func reorder(args []string) []string {
	var flags, rest []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(flags, rest...)
}

// runDisconnect removes the gateway from an app's config.
func runDisconnect(ctx context.Context, c *cmdContext, args []string) error {
	src, err := c.appArg("disconnect", args)
	if err != nil {
		return err
	}
	b, closeFn, err := c.apps(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	res, err := b.DisconnectApp(ctx, src.App)
	if err != nil {
		return err
	}
	if !res.Changed {
		fmt.Fprintf(c.Stdout, "%s was not connected: %s has no server %q.\n", src.App, c.home(src.File), service.GatewayEntry)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Disconnected %s: removed %q from %s (the file as it was is %s.bak).\n",
		src.App, service.GatewayEntry, c.home(src.File), c.home(src.File))
	return nil
}

// appArg reads the one APP argument of connect and disconnect.
func (c *cmdContext) appArg(cmd string, args []string) (service.Source, error) {
	names := strings.Join(c.paths.AppNames(), ", ")
	if len(args) != 1 {
		return service.Source{}, usagef("%s takes one app: %s", cmd, names)
	}
	src, ok := c.paths.AppSource(args[0])
	if !ok {
		return service.Source{}, usagef("mcptray does not know the app %q; it knows %s", sanitize.Line(args[0]), names)
	}
	return src, nil
}
