package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// quitWait bounds how long mcptray quit waits for the running mcptray to
// let its control socket go.
const quitWait = 30 * time.Second

// runQuit is mcptray quit: it asks the running mcptray to stop, as its
// tray's Quit would, and waits until it has let its control socket go. It
// is how a person stops an mcptray that runs without a tray: one an app
// started through mcptray stdio, or mcptray serve elsewhere. The running
// mcptray stops its servers on its way out.
func runQuit(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) > 0 {
		return usagef("quit takes no arguments")
	}
	cl, err := control.DialAs(ctx, c.paths, control.CommandLine)
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintln(c.Stdout, "mcptray is not running.")
		return nil
	}
	if err != nil {
		return err
	}
	err = cl.Quit(ctx)
	cl.Close()
	if errors.Is(err, control.ErrOlder) {
		return fmt.Errorf("the running mcptray (process %d) is older than this one and cannot be asked to stop; use Quit in its tray menu, or end that process", cl.PID)
	}
	if err != nil {
		return fmt.Errorf("asking the running mcptray to stop: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, quitWait)
	defer cancel()
	// There is no event for "the socket is gone": look again briefly.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		cl, err := control.DialAs(ctx, c.paths, control.CommandLine)
		if errors.Is(err, control.ErrNotRunning) {
			fmt.Fprintln(c.Stdout, "mcptray stopped; it stops every server it ran on its way out.")
			return nil
		}
		if err == nil {
			cl.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("mcptray was asked to stop but still answers after %s; mcptray logs says what it is doing", quitWait)
		case <-tick.C:
		}
	}
}
