package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// isBundle reports whether install's argument names an MCP Bundle rather
// than a registry entry: a name ending in .mcpb (or .dxt, its former
// name), or a file that exists.
func isBundle(arg string) bool {
	lower := strings.ToLower(arg)
	if strings.HasSuffix(lower, ".mcpb") || strings.HasSuffix(lower, ".dxt") {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && st.Mode().IsRegular()
}

// listPairs is a repeatable K=V flag whose key may come again, for a
// setting that takes several values.
type listPairs map[string][]string

func (p listPairs) String() string { return "" }

func (p listPairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q should look like NAME=value", s)
	}
	p[k] = append(p[k], v)
	return nil
}

// listFlag is a repeatable flag of words.
type listFlag []string

func (l *listFlag) String() string     { return "" }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// runInstallBundle installs the server of the MCP Bundle file: it shows
// what the bundle is and what it will run and get, asks for its settings
// (secrets without echo, or from stdin one line each), and installs it
// through the service, which checks the bundle again.
func runInstallBundle(ctx context.Context, c *cmdContext, file string, args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	as := fs.String("as", "", "")
	set := listPairs{}
	fs.Var(set, "set", "")
	var write listFlag
	fs.Var(&write, "write", "")
	if err := fs.Parse(args); err != nil {
		return usagef("%s", flagProblem(err))
	}
	if fs.NArg() > 0 {
		return usagef("unexpected %q", fs.Arg(0))
	}
	// The running mcptray reads the file, from a folder of its own.
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	return c.installBundle(ctx, service.BundleRequest{File: file}, *as, set, write)
}

// installBundle installs the bundle src names (its File, or its Registry
// entry, which the running mcptray downloads and checks): it shows what
// the bundle is and what it will run and get, asks for its settings, and
// installs it through the service, which checks the bundle again.
func (c *cmdContext) installBundle(ctx context.Context, src service.BundleRequest, as string, set listPairs, write listFlag) error {
	bk, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	// What it is and asks for, from the service, which opens and checks
	// it; then what it will run, with the settings.
	first, err := bk.InstallBundle(ctx, service.BundleRequest{File: src.File, Registry: src.Registry, Name: as, Preview: true})
	if err != nil {
		return err
	}
	for k := range set {
		i := slices.IndexFunc(first.Settings, func(st service.BundleSetting) bool { return st.Key == k })
		switch {
		case i < 0:
			return usagef("%s does not ask for %s; it asks for %s", sanitize.Line(first.Title), sanitize.Line(k), settingKeys(first.Settings))
		case first.Settings[i].Sensitive:
			return usagef("%s is a secret: it is read from stdin, or asked for, never from the command line (where your shell's history keeps it)", k)
		}
	}
	req := service.BundleRequest{File: src.File, Registry: src.Registry, Name: as, Values: map[string][]string(set), Secrets: map[string]string{}, Write: write, Preview: true}
	for _, st := range first.Settings {
		_, given := set[st.Key]
		switch {
		case given, st.Kept, st.Default:
			continue // the default is shown before anything is installed
		case !st.Required && !(st.Sensitive && c.Interactive):
			continue
		}
		v, err := c.askSetting(st)
		if err != nil {
			return err
		}
		switch {
		case v == "":
		case st.Sensitive:
			req.Secrets[st.Key] = v
		default:
			req.Values[st.Key] = []string{v}
		}
	}
	plan, err := bk.InstallBundle(ctx, req)
	if err != nil {
		return err
	}
	if len(plan.Missing) > 0 {
		return fmt.Errorf("%s needs %s; give each with --set KEY=value", sanitize.Line(plan.Title), strings.Join(plan.Missing, ", "))
	}
	c.showBundle(plan)
	if c.Interactive {
		fmt.Fprint(c.Stderr, "Install it? [Y/n] ")
		if answer, _ := c.readLine(); strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "n") {
			fmt.Fprintln(c.Stdout, "Nothing was installed.")
			return nil
		}
	}
	req.Preview, req.SHA256 = false, plan.Bundle.SHA256
	res, err := bk.InstallBundle(ctx, req)
	if err != nil {
		return err
	}
	if res.Update != nil {
		fmt.Fprintf(c.Stdout, "Updated %s from %s to %s in %s.\n", sanitize.Line(res.Name), sanitize.Line(res.Update.From), sanitize.Line(res.Bundle.Version), c.home(res.File))
	} else {
		fmt.Fprintf(c.Stdout, "Added %s to %s.\n", sanitize.Line(res.Name), c.home(res.File))
	}
	if res.Server != nil && res.Server.Suppressed != "" {
		fmt.Fprintf(c.Stdout, "Note: it will not run on its own: %s.\n", sanitize.Line(c.home(res.Server.Suppressed)))
	}
	return nil
}

func settingKeys(list []service.BundleSetting) string {
	if len(list) == 0 {
		return "nothing"
	}
	keys := make([]string, len(list))
	for i, st := range list {
		keys[i] = st.Key
	}
	return strings.Join(keys, ", ")
}

// askSetting gets one setting: a secret without echo at a terminal,
// anything else with its title and description; without a terminal, the
// next line of stdin. An optional one may be left empty.
func (c *cmdContext) askSetting(uc service.BundleSetting) (string, error) {
	key := uc.Key
	if c.Interactive {
		optional := ""
		if !uc.Required {
			optional = " (optional: Enter leaves it out)"
		}
		fmt.Fprintf(c.Stderr, "%s — %s: %s%s\n", sanitize.Line(key), sanitize.Line(uc.Title), sanitize.Line(uc.Description), optional)
	}
	if uc.Sensitive {
		v, err := c.readSecret(key)
		if err != nil && uc.Required {
			return "", fmt.Errorf("the bundle needs %s (%s), a secret: give it on stdin or at a terminal", key, sanitize.Line(uc.Title))
		}
		return v, nil
	}
	if c.Interactive {
		fmt.Fprintf(c.Stderr, "%s: ", sanitize.Line(key))
	}
	line, err := c.readLine()
	if (err != nil && !errors.Is(err, io.EOF) || line == "") && uc.Required {
		return "", fmt.Errorf("the bundle needs %s (%s: %s); give it with --set %s=…, or on stdin", key, sanitize.Line(uc.Title), sanitize.Line(uc.Description), key)
	}
	return strings.TrimSpace(line), nil
}

// showBundle prints what installing a bundle will do, before it is done:
// what it is and who signed it, what runs, what it reads and changes,
// which secrets go to the keychain, what it says it offers (with what
// reads as orders to the AI) and, updating, what changed.
func (c *cmdContext) showBundle(p service.BundleResult) {
	w := c.Stdout
	verb := "Installing"
	if p.Update != nil {
		verb = "Updating"
	}
	fmt.Fprintf(w, "%s %s %s by %s as %s:\n", verb, sanitize.Line(p.Title), sanitize.Line(p.Bundle.Version), sanitize.Line(p.Author), sanitize.Line(p.Name))
	if p.Description != "" {
		fmt.Fprintf(w, "  %s\n", sanitize.Line(p.Description))
	}
	if p.Bundle.Source == "registry" {
		fmt.Fprintf(w, "  from:        the MCP Registry's %s, downloaded over https and checked against its SHA-256\n", sanitize.Line(p.Bundle.From))
	}
	fmt.Fprintf(w, "  signature:   %s\n", sanitize.Line(p.Bundle.Signature))
	parts := append([]string{p.Command}, p.Args...)
	for i := range parts {
		parts[i] = quoteArg(sanitize.Line(c.home(parts[i])))
	}
	fmt.Fprintf(w, "  runs:        %s\n", strings.Join(parts, " "))
	fmt.Fprintf(w, "  in:          %s (its files, read-only)\n", c.home(p.Cwd))
	if len(p.EnvNames) > 0 {
		fmt.Fprintf(w, "  environment: %s\n", sanitize.Line(strings.Join(p.EnvNames, ", ")))
	}
	if len(p.SecretNames) > 0 {
		fmt.Fprintf(w, "  in your keychain: %s\n", sanitize.Line(strings.Join(p.SecretNames, ", ")))
	}
	folders := func(list []string) string {
		out := make([]string, len(list))
		for i, f := range list {
			out[i] = c.home(sanitize.Line(f))
		}
		return strings.Join(out, ", ")
	}
	if len(p.Read) > 0 {
		fmt.Fprintf(w, "  may read:    %s\n", folders(p.Read))
	}
	if len(p.Write) > 0 {
		fmt.Fprintf(w, "  may change:  %s\n", folders(p.Write))
	}
	c.showDeclared(w, "tools", p.Tools, p.ToolsGenerated)
	c.showDeclared(w, "prompts", p.Prompts, p.PromptsGenerated)
	if p.Update != nil && len(p.Update.Changes) > 0 {
		fmt.Fprintf(w, "  since %s:  %s\n", sanitize.Line(p.Update.From), strings.Join(p.Update.Changes, "; "))
	}
	for _, n := range p.Needs {
		fmt.Fprintf(w, "Note: it %s\n", sanitize.Line(strings.TrimPrefix(n, "it ")))
	}
}

func (c *cmdContext) showDeclared(w io.Writer, what string, list []service.Declared, generated bool) {
	if len(list) == 0 && !generated {
		return
	}
	fmt.Fprintf(w, "  %s:\n", what)
	for _, d := range list {
		line := "    " + sanitize.Line(d.Name)
		if d.Description != "" {
			line += ": " + sanitize.Line(d.Description)
		}
		fmt.Fprintln(w, line)
		for _, f := range d.Flags {
			fmt.Fprintf(w, "      ! %s, in its %s: %q\n", sanitize.Line(f.What), sanitize.Line(f.Where), sanitize.Line(f.Quote))
		}
	}
	if generated {
		fmt.Fprintf(w, "    and %s it makes up as it runs (each held for you to review)\n", what)
	}
	if slices.ContainsFunc(list, func(d service.Declared) bool { return len(d.Flags) > 0 }) {
		fmt.Fprintf(w, "    (marked !: reads as orders to the AI; it will ask before each call)\n")
	}
}
