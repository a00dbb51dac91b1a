package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

func runApprove(_ context.Context, c *cmdContext, args []string) error {
	return c.decide(args, config.Approved)
}

func runDeny(_ context.Context, c *cmdContext, args []string) error {
	return c.decide(args, config.Denied)
}

// decide records the person's decision for exactly what the named server
// runs now, and prints that, so that what was approved is on record.
func (c *cmdContext) decide(args []string, d config.Approval) error {
	if len(args) != 1 {
		return usagef("name one server")
	}
	set := c.loader.Load()
	e, err := c.find(set, args[0])
	if err != nil {
		return err
	}
	if !e.Scope.NeedsApproval() {
		return fmt.Errorf("%s comes from the %s scope (%s), which needs no approval; only servers from project folders do",
			sanitize.Line(e.Name), e.Scope, c.from(e.Origin))
	}
	err = c.loader.Approvals.Record(e.ApprovalKey, config.Decision{
		Approval: d, Name: e.Name, File: e.Origin.File, At: c.Now().UTC(),
	})
	if err != nil {
		return err
	}
	verb := "Approved"
	if d == config.Denied {
		verb = "Denied"
	}
	fmt.Fprintf(c.Stdout, "%s %s (from %s).\n", verb, sanitize.Line(e.Name), c.from(e.Origin))
	c.describe(&e.Server)
	if d == config.Approved {
		fmt.Fprintln(c.Stdout, "If this file changes what the server runs, mcptray will ask you again.")
	}
	return nil
}

// describe prints what a server runs, one fact a line: what a person needs
// to judge it. Env values stay hidden.
func (c *cmdContext) describe(s *config.Server) {
	w := c.Stdout
	if s.Transport.Remote() {
		fmt.Fprintf(w, "  connects to: %s (%s)\n", sanitize.Line(s.URL), s.Transport)
		if names := s.HeaderNames(); len(names) > 0 {
			fmt.Fprintf(w, "  headers:     %s\n", sanitize.Line(strings.Join(names, ", ")))
		}
		return
	}
	fmt.Fprintf(w, "  runs:        %s\n", c.runs(s))
	if s.Cwd != "" {
		fmt.Fprintf(w, "  in folder:   %s\n", sanitize.Line(c.home(s.Cwd)))
	}
	if names := s.EnvNames(); len(names) > 0 {
		fmt.Fprintf(w, "  environment: %s (values hidden)\n", sanitize.Line(strings.Join(names, ", ")))
	}
}

// find looks a server up by name, and when it is not running says why.
func (c *cmdContext) find(set *config.Set, name string) (*config.Entry, error) {
	if e, ok := set.Find(name); ok {
		return e, nil
	}
	for _, e := range set.Suppressed {
		if e.Name == name || e.ConfigName == name {
			return nil, fmt.Errorf("%s (%s) does not run: %s", sanitize.Line(name), c.from(e.Origin), sanitize.Line(c.home(e.Suppressed)))
		}
	}
	for _, p := range set.Problems {
		if p.Server == name {
			return nil, fmt.Errorf("%s has a problem in its config: %s", sanitize.Line(name), sanitize.Line(c.home(p.Error())))
		}
	}
	return nil, fmt.Errorf("there is no server called %q; mcptray list shows them all", sanitize.Line(name))
}
