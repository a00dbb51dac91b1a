package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcptray/mcptray/core/activity"
)

// runActivityReset is mcptray activity reset [--yes]: every row of the
// activity record is deleted and the record starts anew, after the person
// said yes (--yes says it for scripts). The reset is sealed, and the new
// record's first row says who did it, so that verify tells it from the
// file deleted by hand.
func runActivityReset(ctx context.Context, c *cmdContext, args []string) error {
	fset := flag.NewFlagSet("activity reset", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	yes := fset.Bool("yes", false, "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if fset.NArg() > 0 {
		return usagef("activity reset takes no arguments, only --yes")
	}
	ro, err := c.openActivity(ctx)
	if errors.Is(err, activity.ErrNoRecord) {
		fmt.Fprintln(c.Stdout, "There is no activity record yet: nothing to reset.")
		return nil
	}
	if err != nil {
		return err
	}
	sum, err := ro.Verify(ctx)
	ro.Close()
	if err != nil {
		return err
	}
	if !*yes {
		if !c.Interactive || c.Stdin == nil {
			return usagef("activity reset deletes every row of the activity record: run it in a terminal to be asked, or add --yes")
		}
		what := "It has no rows."
		if sum.Rows > 0 {
			what = fmt.Sprintf("It has %d rows, from %s.", sum.Rows, sum.FirstTime.Local().Format("2 Jan 2006"))
		}
		fmt.Fprintf(c.Stdout, "%s Delete every row and start the record anew? The new record will say that you did. [y/N] ", what)
		line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(c.Stdout, "Nothing was deleted.")
			return nil
		}
	}
	l, err := activity.Open(ctx, activity.Options{Path: c.paths.ActivityFile(), Keys: c.Store, Logger: c.logger()})
	if err != nil {
		return err
	}
	deleted, err := l.Reset(ctx, "the command line")
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("starting the activity record anew: %w", err)
	}
	if deleted == 0 {
		fmt.Fprintln(c.Stdout, "The activity record was started anew; it had no rows. Its first row says that you did.")
	} else {
		fmt.Fprintf(c.Stdout, "The activity record was started anew: rows 1–%d were deleted. Its first row says that you did, and mcptray activity verify says so.\n", deleted)
	}
	return nil
}
