package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// mcptray activity reads the activity record's file itself, read-only,
// rather than asking the running mcptray over the control endpoint: the
// record is there to read whether or not mcptray runs (after it was
// killed, say, or to verify a copy), SQLite's WAL lets a reader read what
// was committed while mcptray writes, and it needs no new route. It never
// writes the record, nor mcptray's config.

// activityPoll is how often mcptray activity -f looks for new rows.
const activityPoll = 500 * time.Millisecond

// runActivity prints the record's rows, oldest first (the newest -n), with
// -f those that follow until Ctrl-C; verify checks its hash chain; export
// writes it as CSV.
func runActivity(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "verify":
			return runActivityVerify(ctx, c, args[1:])
		case "export":
			return runActivityExport(ctx, c, args[1:])
		case "key":
			return runActivityKey(ctx, c, args[1:])
		case "reset":
			return runActivityReset(ctx, c, args[1:])
		}
	}
	fset := flag.NewFlagSet("activity", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	filter := activityFlags(fset)
	asJSON := fset.Bool("json", false, "")
	follow := fset.Bool("f", false, "")
	n := fset.Int("n", 50, "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if fset.NArg() > 0 {
		return usagef("activity takes flags, verify, export, key or reset, not %q", fset.Arg(0))
	}
	f, err := filter(c.Now())
	if err != nil {
		return err
	}
	if *n <= 0 {
		return usagef("-n takes a number of rows, 1 or more")
	}
	l, err := c.openActivity(ctx)
	if errors.Is(err, activity.ErrNoRecord) {
		fmt.Fprintln(c.Stdout, "There is no activity record yet: mcptray keeps one from the first call an app makes through it.")
		if !*follow {
			return nil
		}
		if l, err = c.waitActivity(ctx); err != nil || l == nil {
			return err
		}
	} else if err != nil {
		return err
	}
	defer l.Close()
	f.Limit = *n
	rows, err := l.Query(ctx, f)
	if err != nil {
		return err
	}
	slices.Reverse(rows)
	print := func(rows []activity.Entry) error {
		for _, e := range rows {
			if *asJSON {
				if err := writeJSON(c.Stdout, e, false); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintln(c.Stdout, activityLine(e))
		}
		return nil
	}
	if err := print(rows); err != nil {
		return err
	}
	if !*follow {
		if len(rows) == 0 && !*asJSON {
			fmt.Fprintln(c.Stdout, "No activity matches.")
		}
		return nil
	}
	var last int64
	if len(rows) > 0 {
		last = rows[len(rows)-1].ID
	} else if newest, err := l.Query(ctx, activity.Filter{Limit: 1}); err == nil && len(newest) > 0 {
		last = newest[0].ID
	}
	tick := time.NewTicker(activityPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil // Ctrl-C: the way to stop following
		case <-tick.C:
		}
		f.AfterID, f.Limit = last, 1000
		more, err := l.Query(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if len(more) > 0 {
			last = more[len(more)-1].ID
		}
		if err := print(more); err != nil {
			return err
		}
		if len(more) == 0 {
			// Rows the filter leaves out still move the cursor.
			if newest, err := l.Query(ctx, activity.Filter{Limit: 1}); err == nil && len(newest) > 0 {
				last = max(last, newest[0].ID)
			}
		}
	}
}

// activityFlags adds the filters' flags to fset, and returns what makes
// the filter of them once parsed.
func activityFlags(fset *flag.FlagSet) func(now time.Time) (activity.Filter, error) {
	since := fset.String("since", "", "")
	app := fset.String("app", "", "")
	srv := fset.String("server", "", "")
	tool := fset.String("tool", "", "")
	outcome := fset.String("outcome", "", "")
	return func(now time.Time) (activity.Filter, error) {
		f := activity.Filter{App: *app, Server: *srv, Tool: *tool, Outcome: activity.Outcome(*outcome)}
		if *outcome != "" && !slices.Contains(activity.Outcomes, f.Outcome) {
			var words []string
			for _, o := range activity.Outcomes {
				words = append(words, string(o))
			}
			return f, usagef("--outcome is one of %s, not %q", strings.Join(words, ", "), sanitize.Line(*outcome))
		}
		if *since != "" {
			t, err := parseSince(*since, now)
			if err != nil {
				return f, err
			}
			f.Since = t
		}
		return f, nil
	}
}

// parseSince reads --since: a span back from now (90m, 1h, 7d) or a date
// (2026-12-03, 2026-12-03T14:00, RFC 3339), in local time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("--since takes a span (30m, 1h, 7d) or a date (2026-12-03, 2026-12-03T14:00), not %q", sanitize.Line(s))
}

// openActivity opens the record read-only.
func (c *cmdContext) openActivity(ctx context.Context) (*activity.Log, error) {
	return activity.Open(ctx, activity.Options{Path: c.paths.ActivityFile(), ReadOnly: true, Keys: c.Store})
}

// waitActivity waits for the record to be made (mcptray activity -f
// before the first call), or ctx's end (nil then).
func (c *cmdContext) waitActivity(ctx context.Context) (*activity.Log, error) {
	tick := time.NewTicker(activityPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-tick.C:
		}
		l, err := c.openActivity(ctx)
		if !errors.Is(err, activity.ErrNoRecord) {
			return l, err
		}
	}
}

// activityLine is one row for people:
// "2026-12-03 14:02:11  Claude Code (http)  github › create_issue  answered  allowed  312 ms  1.2 kB  {…}".
func activityLine(e activity.Entry) string {
	when := e.Time.Local().Format("2006-01-02 15:04:05")
	if e.Kind == activity.KindTrust {
		return fmt.Sprintf("%s  %s", when, sanitize.Line(e.TrustWords()))
	}
	app := e.App
	if app == "" {
		app = "an unnamed app"
	}
	line := fmt.Sprintf("%s  %s (%s)  %s › %s  %s  %s  %s  %s", when, sanitize.Line(app), e.Face,
		sanitize.Line(e.Server), sanitize.Line(e.Tool), e.Outcome.Words(), e.Decision.Words(),
		activity.DurationWords(e.Duration), activity.SizeWords(e.ResultSize))
	if e.Arguments != "" {
		line += "  " + sanitize.Line(e.Arguments)
	}
	if e.Reason != "" {
		line += "  — " + sanitize.Line(e.Reason)
	}
	return line
}

// runActivityVerify checks the record's chain and seals (the keys are in
// the keychain), says what is proven and from when to when, and fails
// when rows were changed or removed.
func runActivityVerify(ctx context.Context, c *cmdContext, args []string) error {
	fset := flag.NewFlagSet("activity verify", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	asJSON := fset.Bool("json", false, "")
	keyFile := fset.String("key", "", "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if fset.NArg() > 0 {
		return usagef("activity verify takes no arguments")
	}
	var key []byte
	if *keyFile != "" {
		var err error
		if key, err = readLimited(*keyFile, 4<<10); err != nil {
			return fmt.Errorf("reading the verification key: %w", err)
		}
	}
	l, err := activity.Open(ctx, activity.Options{Path: c.paths.ActivityFile(), ReadOnly: true, Keys: c.Store, VerifyKey: key})
	if errors.Is(err, activity.ErrNoRecord) {
		fmt.Fprintln(c.Stdout, "There is no activity record yet: nothing to verify.")
		return nil
	}
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := l.Verify(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(c.Stdout, res, true); err != nil {
			return err
		}
	} else if res.Problem == nil {
		for _, line := range res.Lines() {
			fmt.Fprintln(c.Stdout, line)
		}
	}
	if res.Problem != nil {
		words := make([]string, len(res.Problems))
		for i, p := range res.Problems {
			words[i] = p.Words
		}
		return fmt.Errorf("the activity record was altered: %s (%s)", strings.Join(words, "; "), c.home(c.paths.ActivityFile()))
	}
	return nil
}

// runActivityExport writes the record (filtered as mcptray activity
// filters it) to a CSV file, oldest first.
func runActivityExport(ctx context.Context, c *cmdContext, args []string) error {
	fset := flag.NewFlagSet("activity export", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	filter := activityFlags(fset)
	file := fset.String("csv", "", "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if *file == "" || fset.NArg() > 0 {
		return usagef("activity export takes --csv FILE (- for the standard output)")
	}
	f, err := filter(c.Now())
	if err != nil {
		return err
	}
	l, err := c.openActivity(ctx)
	if err != nil {
		return err
	}
	defer l.Close()
	if *file == "-" {
		_, err := l.Export(ctx, c.Stdout, f)
		return err
	}
	// Written beside the file and renamed over it: never half a file.
	tmp, err := os.CreateTemp(filepath.Dir(*file), ".mcptray-activity-*.csv")
	if err != nil {
		return fmt.Errorf("writing %s: %w", *file, err)
	}
	defer os.Remove(tmp.Name())
	n, err := l.Export(ctx, tmp, f)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), *file)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", *file, err)
	}
	fmt.Fprintf(c.Stdout, "Wrote %d rows to %s.\n", n, *file)
	return nil
}

// recording marks run as a command that makes trust decisions: when no
// mcptray runs, the service it runs in this process records them in the
// activity record, as the running one would.
func recording(run func(context.Context, *cmdContext, []string) error) func(context.Context, *cmdContext, []string) error {
	return func(ctx context.Context, c *cmdContext, args []string) error {
		c.records = true
		return run(ctx, c, args)
	}
}

// recordTrust has svc, run in this process, record its trust decisions
// when the command makes some (through the constructor a running
// mcptray's instance opens its record with), and returns what closes the
// record once svc is closed.
func (c *cmdContext) recordTrust(ctx context.Context, svc *service.Service) func() {
	if !c.records {
		return func() {}
	}
	l, err := instance.OpenActivity(ctx, svc, c.paths, c.logger())
	if err != nil {
		c.logger().Warn("the activity record could not be opened; this decision is not recorded", "err", err)
		return func() {}
	}
	return func() { instance.CloseActivity(svc, l, c.logger()) }
}
