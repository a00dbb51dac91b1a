package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// quitWait bounds how long mcptray quit waits for the running mcptray to
// let its instance lock go.
const quitWait = 30 * time.Second

// runQuit is mcptray quit: it asks the running mcptray to stop, as its
// tray's Quit would, and waits until it has stopped. It
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
	// Stopped once it let its instance lock go, after its servers and
	// its record: not when it stops answering, which comes first.
	if err := control.WaitStopped(ctx, c.paths); err != nil {
		return fmt.Errorf("mcptray was asked to stop but still runs after %s; mcptray logs says what it is doing", quitWait)
	}
	fmt.Fprintln(c.Stdout, "mcptray stopped; it stops every server it ran on its way out.")
	return nil
}
