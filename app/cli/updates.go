package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// runUpdates asks each pinned server's registry what is new, and says
// what each update would change, the lines that send data somewhere new
// first.
func runUpdates(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("updates", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() != 0 {
		return usagef("updates takes no server")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	views, checkErr := b.CheckPackages(ctx)
	if *asJSON {
		if views == nil {
			views = []service.PackageView{}
		}
		if err := writeJSON(c.Stdout, views, true); err != nil {
			return err
		}
		return checkErr
	}
	if len(views) == 0 {
		fmt.Fprintln(c.Stdout, "No server runs a pinned package.")
		return checkErr
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	for _, v := range views {
		fmt.Fprintf(c.Stdout, "%s runs %s\n", sanitize.Line(v.Server), sanitize.Line(v.Facts.Words(now)))
		if v.Update == nil {
			fmt.Fprintln(c.Stdout, "  No update.")
			continue
		}
		fmt.Fprintf(c.Stdout, "  Update: %s\n", indent(v.Update.Words(), "  "))
		fmt.Fprintf(c.Stdout, "  mcptray update %s runs it; until then %s runs.\n", quoteArg(v.Server), sanitize.Line(v.Facts.Version))
	}
	return checkErr
}

// runUpdate runs a server's reviewed update, or goes back with --back.
func runUpdate(ctx context.Context, c *cmdContext, args []string) error {
	args, back := cutFlag(args, "--back")
	if len(args) != 1 {
		return usagef("name one server")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	v, err := b.UpdatePackage(ctx, args[0], back)
	if err != nil {
		return err
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	fmt.Fprintf(c.Stdout, "%s now runs %s.\n", sanitize.Line(v.Server), sanitize.Line(v.Facts.Words(now)))
	if v.Back != "" {
		fmt.Fprintf(c.Stdout, "mcptray update %s --back runs version %s again.\n", quoteArg(v.Server), sanitize.Line(v.Back))
	}
	return nil
}

// indent indents every line of s but the first by prefix.
func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// describePackage says which pinned package the server called name runs,
// when it runs one.
func (c *cmdContext) describePackage(ctx context.Context, b backend, name string) {
	views, err := b.Packages(ctx)
	if err != nil {
		return
	}
	for _, v := range views {
		if v.Server == name {
			fmt.Fprintf(c.Stdout, "  package:     %s, pinned by its content (mcptray updates shows what a newer one changes)\n", sanitize.Line(v.Words))
		}
	}
}
