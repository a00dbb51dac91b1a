package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// reviewed is one server in `mcptray review --json`: its name and review.
type reviewed struct {
	Name   string          `json:"name"`
	Review *service.Review `json:"review"`
}

// runReview is mcptray review [SERVER] [--json]: what changed in each
// server's tools since the person saw them, in words, and what reads as
// orders to the AI.
func runReview(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("review", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 1 {
		return usagef("review takes at most one server")
	}
	only := connectAll
	if fs.NArg() == 1 {
		only = []string{fs.Arg(0)}
	}
	b, done, err := c.backend(ctx, only)
	if err != nil {
		return err
	}
	defer done()
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	snap, err := b.Settle(wctx)
	if err != nil {
		if snap, err = b.Snapshot(ctx); err != nil {
			return err
		}
	}
	var list []reviewed
	for _, sv := range configured(snap) {
		if fs.NArg() == 1 && sv.Name != fs.Arg(0) && sv.ConfigName != fs.Arg(0) {
			continue
		}
		if sv.Review != nil {
			list = append(list, reviewed{sv.Name, sv.Review})
		}
	}
	if fs.NArg() == 1 {
		if _, ok := snap.Find(fs.Arg(0)); !ok {
			return &service.Error{Code: service.NotFound, Msg: fmt.Sprintf("there is no server %q; mcptray list shows them", fs.Arg(0))}
		}
	}
	if *asJSON {
		if list == nil {
			list = []reviewed{}
		}
		return writeJSON(c.Stdout, struct {
			Servers []reviewed `json:"servers"`
		}{list}, true)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.Stdout, "Nothing to review: every tool says what it said when you first saw it.")
		return nil
	}
	for i, r := range list {
		if i > 0 {
			fmt.Fprintln(c.Stdout)
		}
		printReview(c.Stdout, r.Name, r.Review)
	}
	return nil
}

// printReview says one server's review in words, with the description's
// removed words as [-…-] and the added ones as {+…+}.
func printReview(w io.Writer, name string, r *service.Review) {
	name = sanitize.Line(name)
	head := name
	if s := r.Summary(); s != "" {
		head += ": " + s
	}
	fmt.Fprintln(w, head)
	if r.Changes > 0 {
		fmt.Fprintf(w, "  Its tools changed %s since you first saw them (last on %s).\n", times(r.Changes), r.LastChange.Local().Format("2 Jan 2006 15:04"))
	}
	if r.AcceptChanges {
		fmt.Fprintln(w, "  You accept changes from this server as they come (but for flagged tools and lowered annotations).")
	}
	flagged := map[string]map[string]bool{"tool": {}, "prompt": {}} // by kind, then name
	for _, group := range []struct {
		kind string
		list []service.ToolChange
	}{{"tool", r.Held}, {"prompt", r.HeldPrompts}} {
		for _, h := range group.list {
			flagged[group.kind][h.Name] = true
			fmt.Fprintf(w, "  The %s %s %s.\n", group.kind, sanitize.Line(h.Name), sanitize.Line(h.Words.Summary))
			if h.Kept() {
				fmt.Fprintf(w, "    You keep it held since %s.\n", h.KeptSince.Local().Format("2 Jan 2006 15:04"))
			}
			if len(h.Words.Description) > 0 {
				fmt.Fprintf(w, "    Description: %s\n", marked(h.Words.Description))
			}
			for _, l := range h.Words.Lines {
				if l != "its description changed" {
					fmt.Fprintf(w, "    %s\n", sanitize.Line(l))
				}
			}
			printFlags(w, "    ", group.kind, h.Flags)
		}
	}
	for _, n := range r.Removed {
		fmt.Fprintf(w, "  The tool %s was removed: apps no longer see it.\n", sanitize.Line(n))
	}
	for tool, f := range r.Flags {
		if !flagged["tool"][tool] {
			fmt.Fprintf(w, "  The tool %s (offered; mcptray asks before each call):\n", sanitize.Line(tool))
			printFlags(w, "    ", "tool", f)
		}
	}
	// A prompt the person saw as it is now is offered; its orders are
	// said here, as a tool's are, so that status's count has names.
	for _, prompt := range slices.Sorted(maps.Keys(r.PromptFlags)) {
		if !flagged["prompt"][prompt] {
			fmt.Fprintf(w, "  The prompt %s (offered to your apps):\n", sanitize.Line(prompt))
			printFlags(w, "    ", "prompt", r.PromptFlags[prompt])
		}
	}
	if len(r.Held)+len(r.HeldPrompts) > 0 {
		fmt.Fprintf(w, "  Held from your apps until you accept: mcptray accept %s [TOOL…]\n", name)
	}
	if r.Pending() > 0 {
		fmt.Fprintf(w, "  Or keep them held, and stop being asked: mcptray keep %s [TOOL…]\n", name)
	}
}

// printFlags says what in a definition (of a kind, "tool" or "prompt")
// reads as orders to the AI, and where.
func printFlags(w io.Writer, indent, kind string, flags []pins.Flag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintf(w, "%sThis %s's description gives the AI instructions:\n", indent, kind)
	for _, q := range pins.ByQuote(flags) { // a line that breaks three rules is quoted once
		whats := make([]string, len(q.Whats))
		for i, w := range q.Whats {
			whats[i] = sanitize.Line(w)
		}
		fmt.Fprintf(w, "%s  %s (%s): %q\n", indent, strings.Join(whats, "; "), sanitize.Line(q.Where), sanitize.Line(q.Quote))
	}
}

// marked is a description's words with removals as [-…-] and additions as
// {+…+}, as git's word diff shows them.
func marked(segs []pins.Segment) string {
	var b strings.Builder
	for _, s := range segs {
		// Line would trim the spaces between the segments.
		text := strings.ReplaceAll(sanitize.String(s.Text), "\n", " ")
		switch s.Op {
		case pins.Added:
			b.WriteString("{+" + text + "+}")
		case pins.Dropped:
			b.WriteString("[-" + text + "-]")
		default:
			b.WriteString(text)
		}
	}
	return b.String()
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// runAccept is mcptray accept SERVER [TOOL…]: the held tools named (all
// when none is) are pinned as they are now, and offered to apps.
func runAccept(ctx context.Context, c *cmdContext, args []string) error {
	sv, what, err := decideHeld(ctx, c, args, "accept takes a server, and the tools to accept (all when none is named)",
		backend.AcceptTools)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s: accepted %s; your apps are offered them now.\n", sanitize.Line(sv.Name), what)
	if s := sv.Review.Summary(); s != "" {
		fmt.Fprintf(c.Stdout, "Still %s: mcptray review %s\n", s, sanitize.Line(sv.Name))
	}
	return nil
}

// runKeep is mcptray keep SERVER [TOOL…]: the held tools named (all when
// none is) stay held, a decision mcptray keeps until they are accepted or
// change again.
func runKeep(ctx context.Context, c *cmdContext, args []string) error {
	sv, what, err := decideHeld(ctx, c, args, "keep takes a server, and the tools to keep held (all when none is named)",
		backend.KeepHeld)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s: %s kept held; your apps are not offered them until you accept them (mcptray accept %s).\n", sanitize.Line(sv.Name), what, sanitize.Line(sv.Name))
	return nil
}

// decideHeld is accept's and keep's way: args are a server and the tools
// to decide on (all held ones when none is named); once the server has
// settled, decide (the backend's AcceptTools or KeepHeld) is called. It
// returns the server as it is after, and the words for what was decided.
func decideHeld(ctx context.Context, c *cmdContext, args []string, usage string,
	decide func(backend, context.Context, string, []string) (service.Server, error)) (service.Server, string, error) {
	if len(args) == 0 {
		return service.Server{}, "", usagef("%s", usage)
	}
	b, done, err := c.backend(ctx, args[:1])
	if err != nil {
		return service.Server{}, "", err
	}
	defer done()
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	if _, err := b.Settle(wctx); err != nil && ctx.Err() != nil {
		return service.Server{}, "", ctx.Err()
	}
	sv, err := decide(b, ctx, args[0], args[1:])
	if err != nil {
		return service.Server{}, "", err
	}
	what := "its changed tools"
	if len(args) > 1 {
		what = sanitize.Line(strings.Join(args[1:], ", "))
	}
	return sv, what, nil
}

// runAcceptChanges is mcptray accept-changes SERVER on|off.
func runAcceptChanges(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 2 || (args[1] != "on" && args[1] != "off") {
		return usagef("accept-changes takes a server and on or off")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	on := args[1] == "on"
	if err := b.SetAcceptChanges(ctx, args[0], on); err != nil {
		return err
	}
	if on {
		fmt.Fprintf(c.Stdout, "%s: its changes are accepted as they come, but for tools whose descriptions give the AI instructions and tools that claim to be less risky than before.\n", sanitize.Line(args[0]))
	} else {
		fmt.Fprintf(c.Stdout, "%s: its changed tools are held until you accept them.\n", sanitize.Line(args[0]))
	}
	return nil
}

// printHeld says, after a list, which servers hold changed tools and how
// to look at them.
func printHeld(w io.Writer, servers []service.Server) {
	for _, sv := range servers {
		if s := sv.Review.Summary(); s != "" {
			fmt.Fprintf(w, "\n%s: %s until you accept; see what changed: mcptray review %s\n", sanitize.Line(sv.Name), s, sanitize.Line(sv.Name))
		}
	}
}
