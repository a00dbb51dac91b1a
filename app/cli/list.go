package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// listing is `mcptray list --json`: the servers as the service describes
// them (service.Server), the config's problems and the project folders.
// Running says whether a running mcptray answered; when none runs, nothing
// runs the servers either, and their state is only what the config says:
// pending (it will start), awaiting approval or disabled.
type listing struct {
	Running  bool              `json:"running"`
	Servers  []service.Server  `json:"servers"`
	Problems []service.Problem `json:"problems"`
	Folders  []string          `json:"folders"`
}

// configured are the servers that come from config files: every one but
// mcptray's built-in server.
func configured(snap service.Snapshot) []service.Server {
	var out []service.Server
	for _, s := range snap.Servers {
		if !s.BuiltIn() {
			out = append(out, s)
		}
	}
	return out
}

func runList(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("list takes no names")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	snap, err := b.Snapshot(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		_, running := b.(*control.Client)
		out := listing{Running: running, Servers: configured(snap), Problems: snap.Problems, Folders: snap.Folders}
		if out.Servers == nil {
			out.Servers = []service.Server{}
		}
		if out.Problems == nil {
			out.Problems = []service.Problem{}
		}
		if out.Folders == nil {
			out.Folders = []string{}
		}
		return writeJSON(c.Stdout, out, true)
	}
	c.printList(snap)
	return nil
}

func (c *cmdContext) printList(snap service.Snapshot) {
	w := c.Stdout
	var running, suppressed []service.Server
	for _, e := range configured(snap) {
		if e.Suppressed != "" {
			suppressed = append(suppressed, e)
		} else {
			running = append(running, e)
		}
	}
	if len(running) == 0 && len(suppressed) == 0 {
		fmt.Fprintln(w, "No MCP servers found.")
		fmt.Fprintln(w, "Add one with: mcptray add NAME -- COMMAND ARGS…  or  mcptray add NAME --url URL")
	}
	if len(running) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSCOPE\tSTATUS\tRUNS\tFROM")
		for _, e := range running {
			name := sanitize.Line(e.Name)
			if e.NameHidden {
				name += " (its name hides characters)"
			}
			status := mayRun(e)
			if held := e.Review.Summary(); held != "" {
				status += " · " + held
			}
			if flagged := e.Review.FlaggedWords(); flagged != "" {
				status += " · " + flagged
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, e.Scope, status, c.runs(e), c.source(e))
		}
		tw.Flush()
	}
	var levels []string
	boxed := map[string][]string{}
	for _, e := range running {
		if e.Sandbox != nil {
			w := e.Sandbox.Protection.Words
			if boxed[w] == nil {
				levels = append(levels, w)
			}
			boxed[w] = append(boxed[w], sanitize.Line(e.Name))
		}
	}
	if len(levels) > 0 {
		fmt.Fprintln(w, "\nSandbox (mcptray sandbox NAME says what each may do):")
		for _, l := range levels {
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(boxed[l], ", "), sanitize.Line(l))
		}
	}
	var plain []service.Server
	for _, e := range running {
		if len(e.PlainKeys) > 0 {
			plain = append(plain, e)
		}
	}
	if len(plain) > 0 {
		fmt.Fprintln(w, "\nKeys in plain text (anyone who can read the file can use them):")
		for _, e := range plain {
			fmt.Fprintf(w, "  %s (%s) holds a key in plain text: %s\n", sanitize.Line(e.Name), c.from(e.Origin), sanitize.Line(strings.Join(e.PlainKeys, ", ")))
			if e.Scope == service.User || e.Scope == service.Imported {
				fmt.Fprintf(w, "    keep it in your keychain instead: mcptray secret move %s\n", sanitize.Line(e.Name))
			}
		}
	}
	if len(suppressed) > 0 {
		fmt.Fprintln(w, "\nNot running:")
		for _, e := range suppressed {
			fmt.Fprintf(w, "  %s (%s, %s): %s\n", sanitize.Line(e.Name), e.Scope, c.from(e.Origin), sanitize.Line(c.home(e.Suppressed)))
		}
	}
	if len(snap.Problems) > 0 {
		fmt.Fprintln(w, "\nProblems in config files (these were skipped):")
		for _, p := range snap.Problems {
			fmt.Fprintf(w, "  %s\n", sanitize.Line(c.home(p.Error())))
		}
	}
	printHeld(w, running)
	if n := countPending(running); n > 0 {
		fmt.Fprintf(w, "\n%d server(s) wait for your approval: mcptray approve NAME (or deny NAME).\n", n)
	}
}

func countPending(servers []service.Server) int {
	n := 0
	for _, e := range servers {
		if e.Approval == service.Undecided {
			n++
		}
	}
	return n
}

// mayRun says in a word or two whether the config lets a server run.
func mayRun(e service.Server) string {
	switch {
	case e.Suppressed != "":
		return "not running"
	case e.Disabled:
		return "disabled"
	case e.Approval == service.Undecided:
		return "awaiting approval"
	case e.Approval == service.Denied:
		return "denied"
	}
	return "ready"
}

// runs says what a server runs or where it connects, as one line. Env and
// header values are left out: they are often secrets.
func (c *cmdContext) runs(s service.Server) string {
	if s.Transport.Remote() {
		return fmt.Sprintf("%s %s", s.Transport, sanitize.Line(s.URL))
	}
	parts := append([]string{s.Command}, s.Args...)
	for i, p := range parts {
		parts[i] = quoteArg(sanitize.Line(p))
	}
	return strings.Join(parts, " ")
}

// quoteArg quotes an argument the way a person would type it in a shell, so
// that an argument with a space does not look like two.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"\\$`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// source says where a server's config is, and for one installed from a
// bundle which bundle, its version and where it came from.
func (c *cmdContext) source(s service.Server) string {
	from := c.from(s.Origin)
	if b := s.Bundle; b != nil {
		from += fmt.Sprintf(" · bundle %s %s from %s %s", sanitize.Line(b.Name), sanitize.Line(b.Version), sanitize.Line(b.Source), c.home(sanitize.Line(b.From)))
	}
	return from
}

func (c *cmdContext) from(o service.Origin) string {
	if o.File == "" {
		return o.App
	}
	return c.home(o.File)
}

// home shortens paths under the home folder to ~, as people write them.
func (c *cmdContext) home(s string) string {
	if c.paths.Home == "" {
		return s
	}
	return strings.ReplaceAll(s, c.paths.Home+string(filepath.Separator), "~"+string(filepath.Separator))
}
