package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// runSets is mcptray sets: every set, what it holds, which apps get it,
// and the tray's set.
func runSets(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("sets", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("sets takes no names")
	}
	b, done, err := c.apps(ctx)
	if err != nil {
		return err
	}
	defer done()
	v, err := b.Sets(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(c.Stdout, v, true)
	}
	printSets(c.Stdout, v)
	return nil
}

// printSets writes v in words.
func printSets(w io.Writer, v service.SetsView) {
	if len(v.Sets) == 0 {
		fmt.Fprintln(w, "No sets: every app gets every server. mcptray set NAME --servers A,B makes one.")
	}
	for _, s := range v.Sets {
		line := sanitize.Line(s.Words)
		if v.Tray == s.Name {
			line += " (the tray's set)"
		}
		fmt.Fprintln(w, strings.ToUpper(line[:1])+line[1:])
		if len(s.Servers) > 0 {
			fmt.Fprintf(w, "  servers: %s\n", sanitize.Line(strings.Join(s.Servers, ", ")))
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(w, "  single tools: %s\n", sanitize.Line(strings.Join(s.Tools, ", ")))
		}
		if s.NewServers {
			joined := "none yet"
			if len(s.Joined) > 0 {
				joined = strings.Join(s.Joined, ", ")
			}
			fmt.Fprintf(w, "  new servers too (joined since: %s)\n", sanitize.Line(joined))
		}
		printRules(w, s)
		if len(s.Apps) > 0 {
			fmt.Fprintf(w, "  given to: %s\n", sanitize.Line(strings.Join(s.Apps, ", ")))
		}
		if s.Warning != "" {
			fmt.Fprintf(w, "  warning: %s\n", sanitize.Line(s.Warning))
		}
	}
	if v.Unknown == service.GetsNothing {
		fmt.Fprintln(w, "Apps mcptray does not know get nothing until you choose.")
	}
}

// printRules writes the set's own permissions and what it hides; the
// tools it says nothing of are as in the general settings.
func printRules(w io.Writer, s service.SetView) {
	by := map[service.Permission][]string{}
	for tool, p := range s.Permissions {
		by[p] = append(by[p], tool)
	}
	for _, p := range []struct {
		p     service.Permission
		words string
	}{{service.Allow, "allowed in this set"}, {service.Ask, "asked about in this set"}, {service.Block, "blocked in this set"}} {
		if list := by[p.p]; len(list) > 0 {
			slices.Sort(list)
			fmt.Fprintf(w, "  %s: %s\n", p.words, sanitize.Line(strings.Join(list, ", ")))
		}
	}
	if len(s.Hidden) > 0 {
		fmt.Fprintf(w, "  hidden in this set: %s\n", sanitize.Line(strings.Join(s.Hidden, ", ")))
	}
}

// runSet is mcptray set NAME --servers A,B [--tools SERVER/TOOL,…]
// [--new-servers] [--rename NEW] [--allow|--ask|--block|--general
// SERVER/TOOL,…] [--hide|--show SERVER/TOOL|SERVER,…], and mcptray set
// remove NAME. Without --servers, --tools or --new-servers, the set keeps
// what it holds and only its name or its tools' rules change.
func runSet(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 2 && args[0] == "remove" {
		b, done, err := c.apps(ctx)
		if err != nil {
			return err
		}
		defer done()
		v, err := b.RemoveSet(ctx, args[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "Removed the set %s; the apps that had it get everything.\n", sanitize.Line(args[1]))
		printSets(c.Stdout, v)
		return nil
	}
	fs := flag.NewFlagSet("set", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	servers := fs.String("servers", "", "")
	toolList := fs.String("tools", "", "")
	newServers := fs.Bool("new-servers", false, "")
	rename := fs.String("rename", "", "")
	var rules [6]string // allow, ask, block, general, hide, show
	for i, name := range []string{"allow", "ask", "block", "general", "hide", "show"} {
		fs.StringVar(&rules[i], name, "", "")
	}
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() != 1 {
		return usagef("set takes one name: mcptray set NAME --servers A,B")
	}
	req := service.SetRequest{Name: fs.Arg(0), Servers: splitList(*servers), Tools: splitList(*toolList), NewServers: *newServers}
	changesRules := false
	for _, r := range rules {
		changesRules = changesRules || r != ""
	}
	if changesRules {
		req.Rules = &service.SetRules{Permissions: map[string]service.Permission{}, Hide: splitList(rules[4]), Show: splitList(rules[5])}
		for i, p := range []service.Permission{service.Allow, service.Ask, service.Block, ""} {
			for _, tool := range splitList(rules[i]) {
				if had, ok := req.Rules.Permissions[tool]; ok && had != p {
					return usagef("%s is given two permissions: allow, ask, block or general, one of them", tool)
				}
				req.Rules.Permissions[tool] = p
			}
		}
	}
	if *rename != "" {
		req.From, req.Name = req.Name, *rename
	}
	if len(req.Servers) == 0 && len(req.Tools) == 0 && !req.NewServers {
		if req.Rules == nil && req.From == "" {
			return usagef("a set holds something: --servers A,B, --tools SERVER/TOOL or --new-servers; or change one's tools: --allow, --ask, --block, --general, --hide, --show SERVER/TOOL,…")
		}
		req.KeepContent = true // only its name or its rules change
	}
	b, done, err := c.apps(ctx)
	if err != nil {
		return err
	}
	defer done()
	v, err := b.PutSet(ctx, req)
	if err != nil {
		return err
	}
	made := "Made"
	if req.KeepContent {
		made = "Changed"
	}
	for _, s := range v.Sets {
		if s.Name == req.Name {
			fmt.Fprintf(c.Stdout, "%s %s.\n", made, sanitize.Line(s.Words))
			if s.Warning != "" {
				fmt.Fprintf(c.Stdout, "Warning: %s\n", sanitize.Line(s.Warning))
			}
		}
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(c.Stdout, "Not checked: %s.\n", sanitize.Line(w))
	}
	return nil
}

// runApp is mcptray app set APP SET|all|tray, and mcptray app token APP.
func runApp(ctx context.Context, c *cmdContext, args []string) error {
	switch {
	case len(args) == 3 && args[0] == "set":
		b, done, err := c.apps(ctx)
		if err != nil {
			return err
		}
		defer done()
		if _, err := b.GiveApp(ctx, service.GiveRequest{App: args[1], Choice: args[2]}); err != nil {
			return err
		}
		what := "the " + args[2] + " set"
		switch args[2] {
		case service.GetsEverything:
			what = "every server"
		case service.GetsTray:
			what = "the tray's set, whichever it is"
		}
		fmt.Fprintf(c.Stdout, "%s gets %s; its sessions are told at once.\n", sanitize.Line(args[1]), sanitize.Line(what))
		return nil
	case len(args) == 2 && args[0] == "unknown":
		b, done, err := c.apps(ctx)
		if err != nil {
			return err
		}
		defer done()
		if _, err := b.GiveApp(ctx, service.GiveRequest{Unknown: true, Choice: args[1]}); err != nil {
			return err
		}
		if args[1] == service.GetsNothing {
			fmt.Fprintln(c.Stdout, "Apps mcptray does not know get nothing until you choose; those it connected (mcptray connect) are known.")
		} else {
			fmt.Fprintln(c.Stdout, "Apps mcptray does not know get every server.")
		}
		return nil
	case len(args) == 2 && args[0] == "token":
		if err := service.CheckAppName(args[1]); err != nil {
			return usagef("%v", err)
		}
		b, done, err := c.apps(ctx)
		if err != nil {
			return err
		}
		defer done()
		tok, err := b.GatewayToken(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.Stdout, gateway.AppToken(tok, args[1]))
		return nil
	}
	return usagef("app takes set APP SET|all|tray, unknown all|none, or token APP")
}

// splitList splits "a,b" into its names, without empty ones.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
