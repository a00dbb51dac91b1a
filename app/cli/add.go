package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// pairs is a repeatable K=V flag.
type pairs map[string]string

func (p pairs) String() string { return "" }

func (p pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q should look like NAME=value", s)
	}
	p[k] = v
	return nil
}

func runAdd(_ context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usagef("name the server first")
	}
	name := args[0]
	if err := checkName(name); err != nil {
		return err
	}
	fs := flag.NewFlagSet("add", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "")
	transport := fs.String("transport", "", "")
	env, headers := pairs{}, pairs{}
	fs.Var(env, "env", "")
	fs.Var(headers, "header", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usagef("%v", err)
	}
	command := fs.Args()

	entry := map[string]any{}
	switch {
	case *url != "" && len(command) > 0:
		return usagef("give either --url or a command after --, not both")
	case *url != "":
		if len(env) > 0 {
			return usagef("--env is for programs; remote servers take --header")
		}
		entry["type"] = "http"
		if *transport != "" {
			entry["type"] = *transport
		}
		entry["url"] = *url
		if len(headers) > 0 {
			entry["headers"] = map[string]string(headers)
		}
	case len(command) > 0:
		if len(headers) > 0 || *transport != "" {
			return usagef("--header and --transport are for remote servers (--url)")
		}
		entry["command"] = command[0]
		if len(command) > 1 {
			entry["args"] = command[1:]
		}
		if len(env) > 0 {
			entry["env"] = map[string]string(env)
		}
	default:
		return usagef("say what to run after -- (mcptray add NAME -- COMMAND ARGS…) or where to connect (--url URL)")
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	src := config.Source{Scope: config.User, App: "mcptray", File: c.paths.UserFile()}
	vars := config.Vars{Lookup: c.Lookup, Home: c.paths.Home}
	s, err := config.ParseServer(name, raw, src, vars)
	if err != nil {
		return fmt.Errorf("%s %v", name, err)
	}
	err = config.ModifyUserFile(c.paths.UserFile(), func(u *config.UserFile) error {
		if _, ok := u.MCPServers[name]; ok {
			return fmt.Errorf("you already have a server called %q; remove it first or choose another name", name)
		}
		u.MCPServers[name] = raw
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Added %s to %s.\n", name, c.home(c.paths.UserFile()))
	c.describe(&s)
	// Say at once if the new server gives way to one that already exists.
	for _, e := range c.loader.Load().Suppressed {
		if e.Scope == config.User && e.ConfigName == name {
			fmt.Fprintf(c.Stdout, "Note: it will not run on its own: %s.\n", sanitize.Line(c.home(e.Suppressed)))
		}
	}
	return nil
}

// checkName refuses names a person could not type or read back.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return usagef("the name is empty")
	}
	if sanitize.Line(name) != name {
		return fmt.Errorf("the name %q has spaces at its ends, or invisible or control characters; choose a plain name", name)
	}
	return nil
}

func runRemove(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("name one server")
	}
	name := args[0]
	before := c.loader.Load()
	errNotHere := errors.New("not in the user file")
	err := config.ModifyUserFile(c.paths.UserFile(), func(u *config.UserFile) error {
		if _, ok := u.MCPServers[name]; !ok {
			return errNotHere // nothing to write
		}
		delete(u.MCPServers, name)
		return nil
	})
	if err == nil {
		fmt.Fprintf(c.Stdout, "Removed %s from %s.\n", name, c.home(c.paths.UserFile()))
		c.forgetSignIn(ctx, before, name)
		return nil
	}
	if !errors.Is(err, errNotHere) {
		return err
	}
	e, err := c.find(before, name)
	if err != nil {
		return err
	}
	hint := "edit that file"
	if e.Scope.NeedsApproval() {
		hint = "edit that file, or run mcptray deny " + name
	}
	return fmt.Errorf("%s comes from %s (%s scope), not from your mcptray config; to remove it, %s",
		sanitize.Line(e.Name), c.from(e.Origin), e.Scope, hint)
}

// forgetSignIn deletes the keychain items of a removed remote server, unless
// a server that is still configured reaches the same URL and so shares them.
// Failing to reach the keychain does not undo the removal: it is said, and
// the items can go with mcptray logout URL.
func (c *cmdContext) forgetSignIn(ctx context.Context, before *config.Set, name string) {
	var gone *config.Server
	for _, e := range append(before.Servers, before.Suppressed...) {
		if e.Scope == config.User && e.ConfigName == name && e.Transport.Remote() {
			gone = &e.Server
			break
		}
	}
	if gone == nil {
		return
	}
	sig := config.Signature(gone)
	for _, e := range c.loader.Load().Servers {
		if e.Signature == sig {
			return // still in use
		}
	}
	if err := c.oauthManager(nil).SignOut(ctx, gone); err != nil {
		fmt.Fprintf(c.Stderr, "mcptray remove: its sign-in is still in your keychain (%s); mcptray logout %s removes it\n",
			sanitize.Line(err.Error()), sanitize.Line(gone.URL))
	}
}
