package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// runSandbox shows what a local server may do and the files it was
// refused lately, or changes it: allow|deny SERVER --read PATH | --write
// PATH | --host HOST | --port N, and on|off SERVER. Every change goes
// through mcptray, which writes its own config. show SERVER shows a
// server whatever its name: one called check, allow, deny, on, off or
// show too.
func runSandbox(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 {
		return usagef("name a server: mcptray sandbox SERVER")
	}
	show := args[0] == "show"
	if show {
		if args = args[1:]; len(args) == 0 {
			return usagef("name a server: mcptray sandbox show SERVER")
		}
	}
	switch sub := args[0]; {
	case show:
	case sub == "check":
		return checkSandbox(ctx, c, args[1:])
	case sub == "allow", sub == "deny":
		return changeSandbox(ctx, c, args[0] == "allow", args[1:])
	case sub == "on", sub == "off":
		if len(args) != 2 {
			return usagef("sandbox %s takes one server", args[0])
		}
		return withSandbox(ctx, c, func(b backend) error { return b.SetSandbox(ctx, args[1], args[0] == "on") }, func() {
			if args[0] == "on" {
				fmt.Fprintf(c.Stdout, "%s runs in its sandbox again.\n", sanitize.Line(args[1]))
			} else {
				fmt.Fprintf(c.Stdout, "%s now runs without a sandbox: it may do anything you may, with every file in your home. mcptray sandbox on %s puts it back.\n", sanitize.Line(args[1]), sanitize.Line(args[1]))
			}
		})
	}
	name, asJSON := "", false
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case strings.HasPrefix(a, "-"):
			return usagef("sandbox does not know %s", sanitize.Line(a))
		case name != "":
			return usagef("sandbox shows one server at a time")
		default:
			name = a
		}
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	box, err := b.SandboxOf(ctx, name)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(c.Stdout, box, true)
	}
	printSandbox(c, name, box)
	return nil
}

func printSandbox(c *cmdContext, server string, box service.Sandbox) {
	name := sanitize.Line(server)
	fmt.Fprintf(c.Stdout, "%s: %s\n", name, sanitize.Line(box.Protection.Words))
	fmt.Fprintln(c.Stdout, sanitize.Line(box.Words))
	if env := box.Environment.Words; env != "" {
		fmt.Fprintln(c.Stdout, sanitize.Line(env))
	}
	if box.SecretArgs != "" {
		fmt.Fprintln(c.Stdout, sanitize.Line(box.SecretArgs))
	}
	for _, g := range box.Grants {
		switch {
		case g.Deny != "":
			fmt.Fprintf(c.Stdout, "  may %s (mcptray sandbox deny %s %s)\n", sanitize.Line(g.Words), name, sanitize.Line(g.Deny))
		case g.AskedBy != "":
			fmt.Fprintf(c.Stdout, "  may %s (its entry asks for it)\n", sanitize.Line(g.Words))
		default:
			fmt.Fprintf(c.Stdout, "  may %s\n", sanitize.Line(g.Words))
		}
	}
	if box.AskedChange != "" {
		fmt.Fprintln(c.Stdout, sanitize.Line(box.AskedChange))
	}
	if len(box.Refusals) > 0 {
		fmt.Fprintln(c.Stdout, "Refused lately, as the server tells it:")
		for _, r := range box.Refusals {
			if r.Allow == "" {
				fmt.Fprintf(c.Stdout, "  %s: not offered, %s\n", sanitize.Line(r.Claim), sanitize.Line(r.Kept))
				continue
			}
			fmt.Fprintf(c.Stdout, "  %s (checked: it is there, and its sandbox does not give it): mcptray sandbox allow %s %s\n", sanitize.Line(r.Claim), name, sanitize.Line(r.Allow))
		}
	}
	if len(box.Network) > 0 {
		fmt.Fprintln(c.Stdout, "Network refused lately:")
		for _, r := range box.Network {
			fmt.Fprintf(c.Stdout, "  %s (%s): %s\n", sanitize.Line(r.Dest), sanitize.Line(r.Reason), r.Command())
		}
	}
	if len(box.Withheld) > 0 {
		fmt.Fprintln(c.Stdout, "Named in its command, and not given (its publisher wrote the command, not you):")
		for _, w := range box.Withheld {
			fmt.Fprintf(c.Stdout, "  %s: mcptray sandbox allow %s %s\n", sanitize.Line(w.What), name, sanitize.Line(w.Allow))
		}
	}
	if box.Off {
		fmt.Fprintf(c.Stdout, "mcptray sandbox on %s puts it back in its sandbox.\n", name)
	}
}

// changeSandbox parses SERVER --read PATH | --write PATH | --host HOST |
// --port N, in any order, and asks mcptray for the change.
func changeSandbox(ctx context.Context, c *cmdContext, allow bool, args []string) error {
	verb := map[bool]string{true: "allow", false: "deny"}[allow]
	ch := service.SandboxChange{Allow: allow}
	var what string
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag, val, hasVal := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") {
			if ch.Server != "" {
				return usagef("sandbox %s takes one server", verb)
			}
			ch.Server = a
			continue
		}
		if flag == "--sockets" && !hasVal { // it takes no value
			if what != "" {
				return usagef("say one thing at a time: --read PATH, --write PATH, --host HOST, --port N or --sockets")
			}
			what, ch.Sockets = flag, true
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return usagef("%s needs a value", sanitize.Line(flag))
			}
			i++
			val = args[i]
		}
		if what != "" {
			return usagef("say one thing at a time: --read PATH, --write PATH, --host HOST, --port N or --sockets")
		}
		what = flag
		switch flag {
		case "--read":
			ch.Read = val
		case "--write":
			ch.Write = val
		case "--host":
			ch.Host = val
		case "--port":
			p, err := strconv.Atoi(val)
			if err != nil || p <= 0 || p > 65535 {
				return usagef("--port takes a TCP port, 1 to 65535")
			}
			ch.Port = p
		default:
			return usagef("sandbox %s takes --read PATH, --write PATH, --host HOST, --port N or --sockets, not %s", verb, sanitize.Line(flag))
		}
	}
	if ch.Server == "" || what == "" {
		return usagef("mcptray sandbox %s SERVER --read PATH | --write PATH | --host HOST | --port N | --sockets", verb)
	}
	return withSandbox(ctx, c, func(b backend) error { return b.ChangeSandbox(ctx, ch) }, func() {
		item := strings.TrimPrefix(what, "--") + " " + sanitize.Line(c.home(ch.Read+ch.Write)+ch.Host)
		if ch.Port != 0 {
			item = "connect to port " + strconv.Itoa(ch.Port)
		}
		if what == "--host" {
			item = "reach " + sanitize.Line(ch.Host)
		}
		if ch.Sockets {
			item = sandbox.SocketsWords
		}
		switch {
		case what == "--host" && allow: // the proxy reads it at each connection: no restart
			fmt.Fprintf(c.Stdout, "%s may now %s, from its next connection.\n", sanitize.Line(ch.Server), item)
		case what == "--host":
			fmt.Fprintf(c.Stdout, "%s may no longer %s, from its next connection (one open now stays open).\n", sanitize.Line(ch.Server), item)
		case allow:
			fmt.Fprintf(c.Stdout, "%s may now %s; it restarts with it.\n", sanitize.Line(ch.Server), item)
		default:
			fmt.Fprintf(c.Stdout, "%s may no longer %s; it restarts without it.\n", sanitize.Line(ch.Server), item)
		}
	})
}

func withSandbox(ctx context.Context, c *cmdContext, change func(backend) error, done func()) error {
	b, closeB, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer closeB()
	if err := change(b); err != nil {
		return err
	}
	done()
	return nil
}

// checkSandbox is mcptray sandbox check [--json]: the check runs in the
// running mcptray (or in this process when none runs), which keeps it as
// the last one; it fails when a door did not hold.
func checkSandbox(ctx context.Context, c *cmdContext, args []string) error {
	asJSON := false
	for _, a := range args {
		if a != "--json" {
			return usagef("sandbox check takes only --json, not %s", sanitize.Line(a))
		}
		asJSON = true
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	r, err := b.CheckSandbox(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(c.Stdout, r, true); err != nil {
			return err
		}
	} else {
		var out strings.Builder
		r.WriteText(&out)
		fmt.Fprint(c.Stdout, sanitize.String(out.String()))
	}
	if !r.Held() {
		return errors.New("not every door held on this computer (see above)")
	}
	return nil
}
