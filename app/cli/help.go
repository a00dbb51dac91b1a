package cli

import (
	"context"
	"fmt"
	"io"
)

// wantsHelp reports whether args (a command's, up to a "--" that starts
// a server's own command line) ask for its usage.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// commandUsage prints how to call the command name and what it does.
func commandUsage(w io.Writer, name string) {
	for _, c := range commands {
		if c.name == name {
			fmt.Fprintf(w, "mcptray %s %s\n    %s\n", c.name, c.args, c.help)
		}
	}
}

// runHelp is mcptray help [COMMAND].
func runHelp(_ context.Context, c *cmdContext, args []string) error {
	switch len(args) {
	case 0:
		usage(c.Stdout)
		return nil
	case 1:
		if !known(args[0]) {
			return usagef("there is no command %q; mcptray help lists them", args[0])
		}
		commandUsage(c.Stdout, args[0])
		return nil
	}
	return usagef("help takes one command")
}

func known(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}
