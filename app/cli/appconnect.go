package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// runConnect writes the gateway (mcptray stdio) into an app's config, so
// that the app uses every server mcptray runs.
func runConnect(_ context.Context, c *cmdContext, args []string) error {
	src, err := c.appArg("connect", args)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding mcptray's own program to write into %s: %w", src.App, err)
	}
	if err := config.ConnectApp(src, exe); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Connected %s: %s now starts %q as the server %q (the file as it was is %s.bak).\n",
		src.App, c.home(src.File), exe+" stdio", config.GatewayEntry, c.home(src.File))
	fmt.Fprintf(c.Stdout, "Quit %s fully and open it again to use it.\n", src.App)
	return nil
}

// runDisconnect removes the gateway from an app's config.
func runDisconnect(_ context.Context, c *cmdContext, args []string) error {
	src, err := c.appArg("disconnect", args)
	if err != nil {
		return err
	}
	found, err := config.DisconnectApp(src)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(c.Stdout, "%s was not connected: %s has no server %q.\n", src.App, c.home(src.File), config.GatewayEntry)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Disconnected %s: removed %q from %s (the file as it was is %s.bak).\n",
		src.App, config.GatewayEntry, c.home(src.File), c.home(src.File))
	return nil
}

// appArg reads the one APP argument of connect and disconnect.
func (c *cmdContext) appArg(cmd string, args []string) (config.Source, error) {
	names := strings.Join(c.paths.AppNames(), ", ")
	if len(args) != 1 {
		return config.Source{}, usagef("%s takes one app: %s", cmd, names)
	}
	src, ok := c.paths.AppSource(args[0])
	if !ok {
		return config.Source{}, usagef("mcptray does not know the app %q; it knows %s", sanitize.Line(args[0]), names)
	}
	return src, nil
}
