package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/mcptray/mcptray/core/logfile"
)

// followPoll is how often mcptray logs -f looks for new lines.
const followPoll = 250 * time.Millisecond

// runLogs prints the newest lines of the log that mcptray in the tray and
// mcptray serve write, formatted for people, and with -f the lines that
// follow until Ctrl-C. Its first line says where the log is.
func runLogs(ctx context.Context, c *cmdContext, args []string) error {
	fset := flag.NewFlagSet("logs", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	follow := fset.Bool("f", false, "")
	n := fset.Int("n", 100, "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if fset.NArg() > 0 {
		return usagef("logs takes no arguments")
	}
	if *n < 0 {
		return usagef("-n takes a number of lines, 0 or more")
	}
	path := c.paths.LogFile()
	if path == "" {
		return errors.New("mcptray keeps no log on this computer: it found no folder for it")
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(c.Stdout, "There is no log yet at %s: mcptray writes it while it runs in the tray or as mcptray serve.\n", c.home(path))
	case err != nil:
		return fmt.Errorf("reading the log: %w", err)
	case st.Size() == 0:
		fmt.Fprintf(c.Stdout, "The log at %s is empty.\n", c.home(path))
	default:
		fmt.Fprintf(c.Stdout, "Log: %s\n", c.home(path))
	}
	if !*follow {
		lines, err := logfile.Tail(path, *n)
		if err != nil {
			return fmt.Errorf("reading the log: %w", err)
		}
		for _, l := range lines {
			fmt.Fprintln(c.Stdout, logfile.Format(l))
		}
		return nil
	}
	err = logfile.Follow(ctx, path, *n, followPoll, func(lines []string) {
		for _, l := range lines {
			fmt.Fprintln(c.Stdout, logfile.Format(l))
		}
	})
	if ctx.Err() != nil {
		return nil // Ctrl-C: the way to stop following
	}
	return fmt.Errorf("reading the log: %w", err)
}

// openLog makes this process (mcptray serve) log to the log file, from Info
// up, or everything with MCPTRAY_DEBUG=1, which also shows it on stderr
// as for every command. It returns what closes the file.
func (c *cmdContext) openLog() func() error {
	level := slog.LevelInfo
	var stderr slog.Handler
	if v, _ := c.Lookup("MCPTRAY_DEBUG"); v != "" {
		level = slog.LevelDebug
		stderr = slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	log, closeLog, err := logfile.NewLogger(c.paths.LogFile(), level, stderr)
	if err != nil {
		fmt.Fprintf(c.Stderr, "mcptray serve: keeping no log file: %v\n", err)
	}
	c.log = log
	return closeLog
}
