package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
)

// runRetry is mcptray retry NAME: the running mcptray connects the server
// again at once (or pins its package or image again, after a failure), as
// its window's Retry does. Without a running mcptray there is nothing to
// retry: every command that starts servers starts them afresh.
func runRetry(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("name one server")
	}
	cl, err := control.DialAs(ctx, c.paths, control.CommandLine)
	if errors.Is(err, control.ErrNotRunning) {
		fmt.Fprintln(c.Stdout, "mcptray is not running: mcptray status starts every server afresh.")
		return nil
	}
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Retry(ctx, args[0]); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Trying %s again; mcptray status says how it goes.\n", sanitize.Line(args[0]))
	return nil
}
