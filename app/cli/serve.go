package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// runServe runs the connection manager without a window until ctx ends
// (SIGINT or SIGTERM), following config changes, and then stops every
// server it started.
func runServe(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) > 0 {
		return usagef("serve takes no arguments")
	}
	m := c.newManager()
	defer m.Close()
	set := c.loader.Load()
	events := m.Subscribe(ctx)
	if err := m.Apply(set); err != nil {
		return err
	}
	updates, err := c.loader.Watch(ctx, c.logger(), set, config.DefaultDebounce)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "mcptray is running %d servers; press Ctrl-C to stop.\n", len(set.Servers))
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(c.Stdout, "Stopping every server…")
			start := time.Now()
			m.Close()
			fmt.Fprintf(c.Stdout, "Stopped in %s.\n", time.Since(start).Round(time.Millisecond))
			return nil
		case u, ok := <-updates:
			if !ok { // the watcher ends with ctx, handled above
				updates = nil
				continue
			}
			if err := m.Apply(u.Set); err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "config changed: %d added, %d changed, %d removed\n",
				len(u.Changes.Added), len(u.Changes.Changed), len(u.Changes.Removed))
		case e, ok := <-events:
			if !ok { // the subscription ends with ctx, handled above
				events = nil
				continue
			}
			if e.Removed {
				fmt.Fprintf(c.Stdout, "%s: removed\n", sanitize.Line(e.Server))
				continue
			}
			line := fmt.Sprintf("%s: %s", sanitize.Line(e.Server), e.Status.State)
			if e.Status.Err != "" {
				line += " — " + c.home(e.Status.Err)
			}
			fmt.Fprintln(c.Stdout, line)
		}
	}
}
