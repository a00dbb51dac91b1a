package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

func runApprove(ctx context.Context, c *cmdContext, args []string) error {
	args, look := cutFlag(args, "--look") // look.go
	if look {
		if len(args) != 1 {
			return usagef("name one server")
		}
		b, done, err := c.backend(ctx, connectNone)
		if err != nil {
			return err
		}
		defer done()
		ok, err := c.lookFirst(ctx, b, args[0])
		if err != nil || !ok {
			return err
		}
		c.open = b // the approval pins what was looked at, in the same mcptray
		defer func() { c.open = nil }()
	}
	return c.decide(ctx, args, true)
}

func runDeny(ctx context.Context, c *cmdContext, args []string) error {
	return c.decide(ctx, args, false)
}

// decide records the person's decision for exactly what the named server
// runs now, and prints that, so that what was approved is on record.
func (c *cmdContext) decide(ctx context.Context, args []string, approve bool) error {
	if len(args) != 1 {
		return usagef("name one server")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	verb, decide := "Approved", b.Approve
	if !approve {
		verb, decide = "Denied", b.Deny
	}
	s, err := decide(ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s %s (from %s).\n", verb, sanitize.Line(s.Name), c.from(s.Origin))
	c.describe(s)
	if approve {
		fmt.Fprintln(c.Stdout, "If this file changes what the server runs, mcptray will ask you again.")
	}
	return nil
}

// describe prints what a server runs, one fact a line: what a person needs
// to judge it. Env values are never known here.
func (c *cmdContext) describe(s service.Server) {
	w := c.Stdout
	if s.Transport.Remote() {
		fmt.Fprintf(w, "  connects to: %s (%s)\n", sanitize.Line(s.URL), s.Transport)
		if len(s.HeaderNames) > 0 {
			fmt.Fprintf(w, "  headers:     %s\n", sanitize.Line(strings.Join(s.HeaderNames, ", ")))
		}
		return
	}
	fmt.Fprintf(w, "  runs:        %s\n", c.runs(s))
	if s.Cwd != "" {
		fmt.Fprintf(w, "  in folder:   %s\n", sanitize.Line(c.home(s.Cwd)))
	}
	if len(s.EnvNames) > 0 {
		fmt.Fprintf(w, "  environment: %s (values hidden)\n", sanitize.Line(strings.Join(s.EnvNames, ", ")))
	}
	if s.Sandbox != nil && s.Sandbox.SecretArgs != "" {
		fmt.Fprintf(w, "  secrets:     %s\n", sanitize.Line(s.Sandbox.SecretArgs))
	}
}
