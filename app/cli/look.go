package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// lookFirst is mcptray approve NAME --look: the server is run once in its
// sandbox, locked down, and its tools are shown with what reads as orders
// to the AI; then the person is asked. It is a flag of approve rather than
// review on purpose: the look is part of the approval (approving right
// after pins what was shown), while review is about servers that run.
// It reports whether to go on and approve.
func (c *cmdContext) lookFirst(ctx context.Context, b backend, name string) (bool, error) {
	fmt.Fprintf(c.Stdout, "Looking at %s's tools: it runs once in its sandbox, its project folder read-only (up to %s)…\n", sanitize.Line(name), service.LookTimeout)
	l, err := b.LookAtTools(ctx, name)
	if err != nil {
		return false, err
	}
	printLook(c.Stdout, l)
	if !c.Interactive || c.Stdin == nil {
		fmt.Fprintf(c.Stdout, "Nothing was approved: %s still waits. mcptray approve %s approves it.\n", sanitize.Line(name), sanitize.Line(name))
		return false, nil
	}
	fmt.Fprintf(c.Stdout, "Approve %s? [y/N] ", sanitize.Line(name))
	line, _ := bufio.NewReader(c.Stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
		return true, nil
	}
	fmt.Fprintf(c.Stdout, "Nothing was approved: %s still waits.\n", sanitize.Line(name))
	return false, nil
}

// printLook says what a look found: the flagged tools with the lines
// quoted, the others by name, the prompts and the refused connections.
func printLook(w io.Writer, l service.Look) {
	if l.Package != nil {
		// Its code's hidden characters first: a Trojan-source line.
		fmt.Fprint(w, sanitize.String(l.Package.HiddenWords))
		what := "tree"
		if l.Package.Facts.Image != nil {
			what = "image"
		}
		fmt.Fprintf(w, "It runs %s.\nPinned: approving it runs exactly that %s; a newer one is an update you review.\n", sanitize.Line(l.Package.Words), what)
	}
	if words := l.ChangesWords(); words != "" {
		fmt.Fprintln(w, words) // a server that ran before: what changed since
	}
	if len(l.Tools) == 0 {
		fmt.Fprintln(w, "It offers no tools.")
	}
	var plain []string
	for _, t := range l.Tools {
		if !l.Flagged(t.Name) {
			plain = append(plain, sanitize.Line(t.Name))
			continue
		}
		fmt.Fprintf(w, "  %s (if you approve it, mcptray asks before each of its calls):\n", sanitize.Line(t.Name))
		printFlags(w, "    ", "tool", l.Flags[t.Name]) // review.go
	}
	if len(plain) > 0 {
		fmt.Fprintf(w, "  Tools: %s\n", strings.Join(plain, ", "))
	}
	if len(l.Prompts) > 0 {
		var names []string
		for _, p := range l.Prompts {
			names = append(names, sanitize.Line(p.Name))
		}
		fmt.Fprintf(w, "  Prompts: %s\n", strings.Join(names, ", "))
	}
	if !l.Protection.Network {
		fmt.Fprintf(w, "  Its network was not restricted while mcptray looked (%s).\n", sanitize.Line(l.Protection.Words))
	}
	for _, r := range l.Network {
		fmt.Fprintf(w, "  It tried to reach %s: refused.\n", sanitize.Line(r.Dest))
	}
}

// cutFlag takes flag out of args, wherever it is, and says whether it was
// there.
func cutFlag(args []string, flag string) ([]string, bool) {
	out := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == flag })
	return out, len(out) != len(args)
}
