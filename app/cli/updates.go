package cli

import (
	"bufio"
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
		fmt.Fprint(c.Stdout, indentLines(sanitize.String(v.HiddenWords), "  "))
		if v.Update == nil {
			fmt.Fprintln(c.Stdout, "  No update.")
			continue
		}
		fmt.Fprintf(c.Stdout, "  Update: %s\n", indent(v.Update.Words(), "  "))
		fmt.Fprintf(c.Stdout, "  Its tools: %s\n", indent(v.Trial.Words(), "  "))
		fmt.Fprintf(c.Stdout, "  mcptray update %s --tree %s runs it, and no other; until then %s runs.\n", quoteArg(v.Server), shortTree(v.Update.ToHash), sanitize.Line(v.Facts.Version))
	}
	return checkErr
}

// runUpdate runs a server's reviewed update, or goes back with --back.
// With --tree, only the update whose tree mcptray updates showed runs.
func runUpdate(ctx context.Context, c *cmdContext, args []string) error {
	args, back := cutFlag(args, "--back")
	args, tree, err := cutValue(args, "--tree")
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("name one server")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	if !back && tree == "" {
		// Only what the person read runs: without --tree, show the update
		// and ask, and then run that tree and no other, even if a check
		// meanwhile found another.
		var run bool
		if tree, run, err = c.askUpdate(ctx, b, args[0]); err != nil || !run {
			return err
		}
	}
	v, err := b.UpdatePackage(ctx, service.PackageUpdate{Name: args[0], Back: back, Tree: tree})
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

// askUpdate shows the update the last check found for server and asks
// whether to run it: it returns the tree to run and whether to go on (not
// when the person said no). With no update found there is nothing to
// show, and mcptray update goes on to say why in the service's words.
func (c *cmdContext) askUpdate(ctx context.Context, b backend, server string) (string, bool, error) {
	views, err := b.Packages(ctx)
	if err != nil {
		return "", false, err
	}
	var v *service.PackageView
	for i := range views {
		if views[i].Server == server {
			v = &views[i]
		}
	}
	if v == nil || v.Update == nil {
		return "", true, nil
	}
	if !c.Interactive || c.Stdin == nil {
		return "", false, usagef("mcptray update runs only what you read: run it in a terminal to be shown the update and asked, or name the tree mcptray updates showed (mcptray update %s --tree %s)", quoteArg(server), shortTree(v.Update.ToHash))
	}
	fmt.Fprintf(c.Stdout, "%s runs version %s.\nUpdate: %s\nIts tools: %s\n", sanitize.Line(v.Server), sanitize.Line(v.Facts.Version), indent(v.Update.Words(), "  "), indent(v.Trial.Words(), "  "))
	if v.Trial.Holds() {
		fmt.Fprintf(c.Stdout, "Nothing changed: %s still runs version %s.\n", sanitize.Line(v.Server), sanitize.Line(v.Facts.Version))
		return "", false, nil
	}
	if v.Trial.Changed() {
		fmt.Fprintln(c.Stdout, "Running it accepts these changes of its tools' words.")
	}
	fmt.Fprint(c.Stdout, "Run it? [y/N] ")
	line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintf(c.Stdout, "Nothing changed: %s still runs version %s.\n", sanitize.Line(v.Server), sanitize.Line(v.Facts.Version))
		return "", false, nil
	}
	return v.Update.ToHash, true, nil
}

// shortTree is the part of a tree's hash that mcptray update --tree takes.
func shortTree(hash string) string {
	if len(hash) > 16 {
		return hash[:16]
	}
	return hash
}

// cutValue takes "flag VALUE" or "flag=VALUE" out of args, wherever it
// is, and returns the value ("" when absent).
func cutValue(args []string, flag string) ([]string, string, error) {
	var out []string
	value := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == flag:
			if i+1 >= len(args) {
				return nil, "", usagef("%s needs a value", flag)
			}
			value = args[i+1]
			i++
		case strings.HasPrefix(a, flag+"="):
			value = strings.TrimPrefix(a, flag+"=")
		default:
			out = append(out, a)
		}
	}
	return out, value, nil
}

// indent indents every line of s but the first by prefix.
func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// indentLines is s with prefix before each of its lines, each ending in
// a line break; "" when s is.
func indentLines(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + indent(s, prefix) + "\n"
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
			fmt.Fprint(c.Stdout, indentLines(sanitize.String(v.HiddenWords), "  "))
			fmt.Fprintf(c.Stdout, "  package:     %s\n               pinned by its content (mcptray updates shows what a newer one changes)\n", sanitize.Line(v.Words))
		}
	}
}
