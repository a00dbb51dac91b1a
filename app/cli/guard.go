package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// labelFlags are mcptray guard label's flags, each the label it gives or
// takes away.
var labelFlags = map[string]struct {
	label string
	on    bool
}{
	"--private": {"private", true}, "--not-private": {"private", false},
	"--untrusted": {"untrusted", true}, "--not-untrusted": {"untrusted", false},
	"--egress": {"egress", true}, "--not-egress": {"egress", false},
}

// runGuard shows the flow guard's mode and the tools' labels, sets the
// mode (off, ask, block), or corrects a tool's labels.
func runGuard(ctx context.Context, c *cmdContext, args []string) error {
	switch {
	case len(args) == 0 || args[0] == "status":
		return guardStatus(ctx, c, "")
	case len(args) == 1 && (args[0] == "off" || args[0] == "ask" || args[0] == "block"):
		m := service.GuardMode(args[0])
		if err := c.changeRules(ctx, func(b backend) error { return b.SetGuardMode(ctx, m) }); err != nil {
			return err
		}
		fmt.Fprintln(c.Stdout, guardModeWords(m))
		return nil
	case args[0] == "label" && len(args) >= 2:
		tool := args[1]
		if !strings.HasPrefix(tool, "mcp__") {
			return usagef("a tool is named as apps see it, mcp__SERVER__TOOL (mcptray guard lists them)")
		}
		if len(args) == 2 {
			return guardStatus(ctx, c, tool)
		}
		var ch service.LabelChange
		reset := false
		for _, a := range args[2:] {
			if a == "--reset" {
				reset = true
				continue
			}
			f, ok := labelFlags[a]
			if !ok {
				return usagef("%q is not one of --private, --untrusted, --egress, their --not- forms, or --reset", sanitize.Line(a))
			}
			on := f.on
			switch f.label {
			case "private":
				ch.Private = &on
			case "untrusted":
				ch.Untrusted = &on
			default:
				ch.Egress = &on
			}
		}
		if err := c.changeRules(ctx, func(b backend) error { return b.SetGuardLabels(ctx, tool, ch, reset) }); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s: labels changed as you said; mcptray guard label %s shows them.\n", sanitize.Line(tool), sanitize.Line(tool))
		return nil
	}
	return usagef("guard takes off, ask, block, or label TOOL [--private|--not-private|--untrusted|--not-untrusted|--egress|--not-egress|--reset]")
}

// guardModeWords says what the guard does in mode m.
func guardModeWords(m service.GuardMode) string {
	switch m {
	case service.GuardOff:
		return "The guard is off: apps may send data out after reading your data and content from outside, without asking."
	case service.GuardBlock:
		return "The guard blocks: once an app's session has read your data and content from outside, its calls that can send data out are refused."
	}
	return "The guard asks: once an app's session has read your data and content from outside, mcptray asks you before it sends data out (with no window, it refuses)."
}

// guardStatus prints the guard's mode and the labels of the connected
// servers' tools (only tool's, when named), with their reasons.
func guardStatus(ctx context.Context, c *cmdContext, tool string) error {
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	snap, err := b.Snapshot(ctx)
	if err != nil {
		return err
	}
	labels := snap.GuardLabels()
	if tool == "" {
		fmt.Fprintln(c.Stdout, guardModeWords(snap.Gateway.Guard.Mode.Or()))
	}
	names := slices.Sorted(maps.Keys(labels))
	if tool != "" {
		if _, ok := labels[tool]; !ok {
			return fmt.Errorf("no connected server has the tool %s; mcptray guard lists the tools", sanitize.Line(tool))
		}
		names = []string{tool}
	}
	if len(names) == 0 {
		fmt.Fprintln(c.Stdout, "No server is connected, so no tool has labels yet: they show while mcptray runs.")
	}
	for _, n := range names {
		tl := labels[n]
		fmt.Fprintf(c.Stdout, "%s: %s\n", sanitize.Line(n), tl.Labels)
		for _, line := range strings.Split(tl.Words(), "\n") {
			fmt.Fprintf(c.Stdout, "  %s\n", sanitize.Line(line))
		}
	}
	return nil
}
