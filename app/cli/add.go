package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// names is a repeatable flag of variable names, in the order given. A
// mistake is kept in err rather than returned, since the flag package
// would quote the whole argument, which may be a pasted secret.
type names struct {
	list []string
	err  error
	// header says the names are headers' (--secret-header), not
	// variables' (--secret-env).
	header bool
}

func (n *names) String() string { return "" }

func (n *names) Set(s string) error {
	flag := "--secret-env"
	if n.header {
		flag = "--secret-header"
	}
	switch {
	case n.err != nil:
	case strings.Contains(s, "=") || n.header && strings.Contains(s, ":"):
		n.err = usagef("%s takes a name only (%s); its value is read from stdin, or asked for, never from the command line",
			flag, sanitize.Line(strings.FieldsFunc(s, func(r rune) bool { return r == '=' || r == ':' })[0]))
	case n.header && !isHeaderName(s):
		n.err = usagef("--secret-header %q is not a header name (letters, digits and -)", sanitize.Line(s))
	case !n.header && !isVarName(s):
		n.err = usagef("--secret-env %q is not a variable name (letters, digits and _)", sanitize.Line(s))
	default:
		n.list = append(n.list, s)
	}
	return nil
}

// isHeaderName reports whether s is an HTTP header's name (an RFC 9110
// token).
func isHeaderName(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return s != ""
}

// isVarName reports whether s is an environment variable's name.
func isVarName(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' && i > 0) {
			return false
		}
	}
	return s != ""
}

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

func runAdd(ctx context.Context, c *cmdContext, args []string) error {
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
	var secretEnv names
	secretHeaders := names{header: true}
	fs.Var(env, "env", "")
	fs.Var(headers, "header", "")
	fs.Var(&secretEnv, "secret-env", "")
	fs.Var(&secretHeaders, "secret-header", "")
	if err := fs.Parse(args[1:]); err != nil {
		return usagef("%v", err)
	}
	if err := cmp.Or(secretEnv.err, secretHeaders.err); err != nil {
		return err
	}
	// The secrets to read: by the name each is kept under, what it is.
	type wanted struct{ secret, label string }
	var toRead []wanted
	command := fs.Args()

	entry := map[string]any{}
	switch {
	case *url != "" && len(command) > 0:
		return usagef("give either --url or a command after --, not both")
	case *url != "":
		if len(env) > 0 || len(secretEnv.list) > 0 {
			return usagef("--env and --secret-env are for programs; remote servers take --header")
		}
		kind, err := service.CheckURL(*url)
		if err != nil {
			return err
		}
		entry["type"] = kind
		if *transport != "" {
			entry["type"] = *transport
		}
		entry["url"] = *url
		for _, h := range secretHeaders.list {
			if _, ok := headers[h]; ok {
				return usagef("%s is given both as --header and as --secret-header; keep one", h)
			}
			name := service.HeaderSecretName(h)
			if slices.ContainsFunc(toRead, func(w wanted) bool { return w.secret == name }) {
				return usagef("--secret-header %s is given twice", h)
			}
			headers[h] = service.SecretRef(name)
			toRead = append(toRead, wanted{name, h})
		}
		if len(headers) > 0 {
			entry["headers"] = map[string]string(headers)
		}
	case len(command) > 0:
		if len(headers) > 0 || len(secretHeaders.list) > 0 || *transport != "" {
			return usagef("--header, --secret-header and --transport are for remote servers (--url)")
		}
		entry["command"] = command[0]
		if len(command) > 1 {
			entry["args"] = command[1:]
		}
		for _, k := range secretEnv.list {
			if _, ok := env[k]; ok {
				return usagef("%s is given both as --env and as --secret-env; keep one", k)
			}
			env[k] = service.SecretRef(k)
			toRead = append(toRead, wanted{k, k})
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
	// Read before anything is written: a missing value changes nothing.
	var secrets map[string]string
	for _, w := range toRead {
		v, err := c.readSecret(w.label)
		if err != nil {
			return err
		}
		if secrets == nil {
			secrets = map[string]string{}
		}
		secrets[w.secret] = v
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	res, err := b.Add(ctx, service.AddRequest{Name: name, Entry: raw, Secrets: secrets})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Added %s to %s.\n", name, c.home(res.File))
	c.describe(res.Server)
	if res.Note != "" {
		// Say at once that the new server gives way to one that exists.
		fmt.Fprintf(c.Stdout, "Note: it will not run on its own: %s.\n", sanitize.Line(c.home(res.Note)))
	}
	return nil
}

// checkName refuses names a person could not type or read back: the
// service's check (it makes it again when it adds), said before anything is
// read or asked.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return usagef("the name is empty")
	}
	return service.CheckName(name)
}

func runRemove(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("name one server")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	res, err := b.Remove(ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Removed %s from %s.\n", args[0], c.home(res.File))
	if res.Warning != "" {
		fmt.Fprintf(c.Stderr, "mcptray remove: %s\n", sanitize.Line(res.Warning))
	}
	return nil
}
