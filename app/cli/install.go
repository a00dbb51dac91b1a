package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

func runInstall(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("name the server as the registry does, for example io.github.user/weather (mcptray search finds names), or give an MCP Bundle file (./weather.mcpb)")
	}
	regName := args[0]
	if isBundle(regName) {
		return runInstallBundle(ctx, c, regName, args[1:])
	}
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	as := fs.String("as", "", "")
	local := fs.Bool("local", false, "")
	remote := fs.Bool("remote", false, "")
	runtime := fs.String("runtime", "", "")
	use := fs.Int("use", 0, "")
	set := listPairs{} // several values of one key only for a bundle's setting
	fs.Var(set, "set", "")
	var write listFlag // a bundle's folder settings it may change
	fs.Var(&write, "write", "")
	if err := fs.Parse(args[1:]); err != nil {
		// Not %v of err: it would quote a --set value, perhaps a secret.
		return usagef("%s", flagProblem(err))
	}
	if fs.NArg() > 0 {
		return usagef("unexpected %q", fs.Arg(0))
	}
	prefer := registry.PreferAny
	switch {
	case *local && *remote:
		return usagef("choose --local or --remote, not both")
	case *local:
		prefer = registry.PreferLocal
	case *remote:
		prefer = registry.PreferRemote
	}

	cat, err := c.catalogue()
	if err != nil {
		return err
	}
	entry, err := cat.Get(ctx, regName)
	if err != nil {
		return err
	}
	d := &entry.Server
	choice, err := c.chooseWay(d, registry.Want{Prefer: prefer, Runtime: *runtime, Number: *use})
	if err != nil {
		return err
	}
	if choice.Bundle {
		// Downloaded and checked by the running mcptray, then shown and
		// asked for as a bundle file is.
		one := *d
		one.Packages, one.Remotes = []registry.Package{d.Packages[choice.Number-1]}, nil
		return c.installBundle(ctx, service.BundleRequest{Registry: &one}, *as, set, write)
	}
	if len(write) > 0 {
		return usagef("--write is for an MCP Bundle's folder and file settings; %s is not installed from one", sanitize.Line(regName))
	}
	values := map[string]string{}
	for k, vs := range set {
		if len(vs) > 1 {
			return usagef("--set %s is given %d times; it takes one value", k, len(vs))
		}
		values[k] = vs[0]
	}
	fields, err := registry.FieldsFor(d, choice)
	if err != nil {
		return err
	}
	for k := range set {
		i := slices.IndexFunc(fields, func(f registry.Field) bool { return f.Key == k })
		switch {
		case i < 0:
			return usagef("%s does not ask for %s; it asks for %s", sanitize.Line(regName), sanitize.Line(k), fieldKeys(fields))
		case fields[i].Secret:
			return usagef("%s is a secret: it is read from stdin, or asked for, never from the command line (where your shell's history keeps it)", k)
		}
	}
	plan, err := registry.PlanFor(d, choice, values)
	var missing *registry.MissingError
	if errors.As(err, &missing) {
		for _, f := range missing.Fields {
			v, err := c.ask(f)
			if err != nil {
				return err
			}
			values[f.Key] = v
		}
		plan, err = registry.PlanFor(d, choice, values)
	}
	if err != nil {
		return err
	}
	name := plan.Name()
	if *as != "" {
		name = *as
	}
	if err := checkName(name); err != nil {
		return err
	}

	c.showPlan(plan, name)
	if plan.Runtime != "" && !c.installed(plan.Runtime) {
		fmt.Fprintf(c.Stdout, "Note: %s is not installed here; %s, or the server will not start.\n", plan.Runtime, registry.InstallHint(plan.Runtime))
	}
	if c.Interactive {
		fmt.Fprint(c.Stderr, "Add it? [Y/n] ")
		if answer, _ := c.readLine(); strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "n") {
			fmt.Fprintln(c.Stdout, "Nothing was added.")
			return nil
		}
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	res, err := b.Add(ctx, service.AddRequest{Name: name, Entry: plan.Entry(), Secrets: plan.Secrets, Registry: d, Given: plan.Given})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Added %s to %s.\n", name, c.home(res.File))
	if p := res.Package; p != nil {
		fmt.Fprint(c.Stdout, indentLines(sanitize.String(p.HiddenWords), "  "))
		fmt.Fprintf(c.Stdout, "  package:     %s\n               pinned by its content (mcptray updates shows what a newer one changes)\n", sanitize.Line(p.Words))
	}
	if res.Note != "" {
		fmt.Fprintf(c.Stdout, "Note: it will not run on its own: %s.\n", sanitize.Line(c.home(res.Note)))
	}
	if box := res.Server.Sandbox; box != nil && box.SecretArgs != "" {
		// Its publisher put a secret in its arguments.
		fmt.Fprintf(c.Stdout, "Note: %s\n", sanitize.Line(box.SecretArgs))
	}
	return nil
}

// chooseWay picks how to run d among the ways w allows: the only one, or
// the person's answer at a terminal, or else the first that can run here
// (its runtime installed), saying which and how to choose another.
func (c *cmdContext) chooseWay(d *registry.ServerDetail, w registry.Want) (registry.Choice, error) {
	candidates, err := registry.Candidates(d, w)
	if err != nil {
		return registry.Choice{}, err
	}
	def := registry.Default(candidates, c.installed)
	if len(candidates) == 1 {
		return def, nil
	}
	if !c.Interactive {
		fmt.Fprintf(c.Stdout, "%s can run in %d ways; using %d: %s. Choose another with --use N (%s).\n",
			sanitize.Line(d.Name), len(candidates), def.Number, sanitize.Line(def.Label), sanitize.Line(waysList(candidates)))
		return def, nil
	}
	fmt.Fprintf(c.Stderr, "%s can run in %d ways:\n", sanitize.Line(d.Name), len(candidates))
	for _, ch := range candidates {
		note := ""
		if ch.Runtime != "" && !c.installed(ch.Runtime) {
			note = " (" + ch.Runtime + " is not installed here)"
		}
		fmt.Fprintf(c.Stderr, "  %d. %s%s\n", ch.Number, sanitize.Line(ch.Label), note)
	}
	fmt.Fprintf(c.Stderr, "Which one? [%d] ", def.Number)
	answer, err := c.readLine()
	answer = strings.TrimSpace(answer)
	if err != nil && !errors.Is(err, io.EOF) {
		return registry.Choice{}, err
	}
	if answer == "" {
		return def, nil
	}
	for _, ch := range candidates {
		if answer == strconv.Itoa(ch.Number) {
			return ch, nil
		}
	}
	return registry.Choice{}, usagef("%q is not one of the ways listed; answer with its number", sanitize.Line(answer))
}

// waysList lists ways as "1: npm package …, run with npx; 4: remote at …".
func waysList(list []registry.Choice) string {
	parts := make([]string, len(list))
	for i, ch := range list {
		parts[i] = fmt.Sprintf("%d: %s", ch.Number, ch.Label)
	}
	return strings.Join(parts, "; ")
}

// flagProblem says what is wrong with the flags without quoting a value.
func flagProblem(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "flag -use") {
		return "--use takes a number: the way to run it, as install lists them"
	}
	if strings.Contains(msg, "invalid value") {
		return "a --set is not NAME=value"
	}
	return msg
}

func fieldKeys(fields []registry.Field) string {
	if len(fields) == 0 {
		return "nothing"
	}
	var keys []string
	for _, f := range fields {
		keys = append(keys, f.Key)
	}
	return strings.Join(keys, ", ")
}

// ask gets a required value: a secret without echo on a terminal, anything
// else with its description, choices and default; without a terminal, the
// next line of stdin.
func (c *cmdContext) ask(f registry.Field) (string, error) {
	if f.Secret {
		if c.Interactive && f.Description != "" {
			fmt.Fprintf(c.Stderr, "%s: %s\n", sanitize.Line(f.Key), sanitize.Line(f.Description))
		}
		return c.readSecret(f.Key)
	}
	if c.Interactive {
		fmt.Fprintf(c.Stderr, "%s", sanitize.Line(f.Key))
		if f.Description != "" {
			fmt.Fprintf(c.Stderr, " (%s)", sanitize.Line(f.Description))
		}
		if len(f.Choices) > 0 {
			fmt.Fprintf(c.Stderr, " [%s]", sanitize.Line(strings.Join(f.Choices, "/")))
		}
		fmt.Fprint(c.Stderr, ": ")
	}
	line, err := c.readLine()
	if err != nil || line == "" {
		return "", fmt.Errorf("%s needs %s (%s%s); give it with --set %s=…, or on stdin",
			"the server", f.Key, f.Where, describeField(f), f.Key)
	}
	if err := registry.CheckValue(f, line); err != nil {
		return "", err
	}
	return line, nil
}

func describeField(f registry.Field) string {
	if f.Description == "" {
		return ""
	}
	return ": " + sanitize.Line(f.Description)
}

// showPlan prints what installing will add, before it is added: what runs
// or where it connects, and the names of its variables, headers and
// secrets, never their values; for a local server, what it may reach of
// the home, and what its command names that it is not given.
func (c *cmdContext) showPlan(p *registry.Plan, name string) {
	w := c.Stdout
	title := ""
	if p.Title != "" {
		title = " (" + sanitize.Line(p.Title) + ")"
	}
	fmt.Fprintf(w, "Installing %s %s%s as %s:\n", sanitize.Line(p.Registry), sanitize.Line(p.Version), title, sanitize.Line(name))
	if p.Remote {
		fmt.Fprintf(w, "  connects to: %s (%s)\n", sanitize.Line(p.URL), p.Transport)
		if len(p.HeaderNames) > 0 {
			fmt.Fprintf(w, "  headers:     %s\n", sanitize.Line(strings.Join(p.HeaderNames, ", ")))
		}
	} else {
		fmt.Fprintf(w, "  runs:        %s\n", sanitize.Line(strings.Join(append([]string{p.Command}, p.Args...), " ")))
		if len(p.EnvNames) > 0 {
			fmt.Fprintf(w, "  environment: %s\n", sanitize.Line(strings.Join(p.EnvNames, ", ")))
		}
	}
	if len(p.SecretNames) > 0 {
		fmt.Fprintf(w, "  in your keychain: %s\n", sanitize.Line(strings.Join(p.SecretNames, ", ")))
	}
	give := func(allow string) string {
		return "To give it: mcptray sandbox allow " + sandbox.QuoteArg(name) + " " + allow
	}
	for _, line := range p.Reach(c.paths.Home, give) {
		fmt.Fprintf(w, "%s\n", sanitize.Line(line))
	}
}
