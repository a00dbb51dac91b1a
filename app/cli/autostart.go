package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcptray/mcptray/app/autostart"
)

// runAutostart is mcptray autostart on|off|status: start at login, the
// same switch as in the window's Settings.
func runAutostart(_ context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("autostart", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() == 0 {
		return usagef("say on, off or status")
	}
	what := fs.Arg(0)
	// --json may come after the word too: mcptray autostart status --json.
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("say one of on, off or status")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding mcptray's own program: %w", err)
	}
	sw, err := autostart.New("", c.paths, exe)
	if err != nil {
		return err
	}
	switch what {
	case "on":
		if err := sw.Enable(); err != nil {
			return err
		}
	case "off":
		if err := sw.Disable(); err != nil {
			return err
		}
	case "status":
	default:
		return usagef("say on, off or status, not %q", what)
	}
	st, err := sw.Status()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(c.Stdout, st, true)
	}
	switch {
	case !st.On:
		fmt.Fprintln(c.Stdout, "mcptray does not start when you log in; mcptray autostart on turns it on.")
	case !st.Current:
		fmt.Fprintf(c.Stdout, "mcptray starts when you log in (%s), but from another copy of the program; mcptray autostart on points it at this one.\n", st.Where)
	default:
		fmt.Fprintf(c.Stdout, "mcptray starts in the tray when you log in (%s).\n", st.Where)
	}
	return nil
}
