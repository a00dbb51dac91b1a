package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// maxSecretLine bounds one secret read from stdin.
const maxSecretLine = 16 << 10

func runSecret(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 {
		return usagef("say set, unset, list or move")
	}
	verb, rest := args[0], args[1:]
	if verb == "move" {
		return runSecretMove(ctx, c, rest)
	}
	jsonOut := false
	if verb == "list" && len(rest) > 0 && rest[len(rest)-1] == "--json" {
		jsonOut, rest = true, rest[:len(rest)-1]
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			// A value given as a flag would be in the shell's history.
			return usagef("%s is not an option here; set reads the value from stdin or asks for it", sanitize.Line(strings.SplitN(a, "=", 2)[0]))
		}
	}
	switch {
	case verb == "list" && len(rest) != 1:
		return usagef("name one server")
	case (verb == "set" || verb == "unset") && len(rest) != 2:
		return usagef("name the server and the secret: mcptray secret %s SERVER NAME", verb)
	case verb != "set" && verb != "unset" && verb != "list":
		return usagef("%q is not set, unset, list or move", verb)
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	sb := b
	server := rest[0]
	switch verb {
	case "list":
		list, err := sb.Secrets(ctx, server)
		if err != nil {
			return err
		}
		if jsonOut {
			return writeJSON(c.Stdout, struct {
				Secrets []service.SecretInfo `json:"secrets"`
			}{list}, true)
		}
		if len(list) == 0 {
			fmt.Fprintf(c.Stdout, "%s keeps no secret in the keychain.\n", sanitize.Line(server))
			return nil
		}
		for _, s := range list {
			state := "set"
			if !s.Set {
				state = "not set: mcptray secret set " + sanitize.Line(server) + " " + s.Name
			}
			fmt.Fprintf(c.Stdout, "%s\t%s\n", s.Name, state)
		}
		return nil
	case "unset":
		if err := sb.UnsetSecret(ctx, service.SecretRequest{Server: server, Name: rest[1]}); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "Removed %s of %s from your keychain.\n", sanitize.Line(rest[1]), sanitize.Line(server))
		return nil
	}
	name := rest[1]
	// Ask for a value only for a secret the server refers to.
	list, err := sb.Secrets(ctx, server)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(list, func(s service.SecretInfo) bool { return s.Name == name }) {
		var names []string
		for _, s := range list {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return fmt.Errorf("%s refers to no secret; its config would need ${secret:%s} where the value goes", sanitize.Line(server), sanitize.Line(name))
		}
		return fmt.Errorf("%s has no secret called %s; its secrets are %s", sanitize.Line(server), sanitize.Line(name), strings.Join(names, ", "))
	}
	value, err := c.readSecret(name)
	if err != nil {
		return err
	}
	if err := sb.SetSecret(ctx, service.SecretRequest{Server: server, Name: name, Value: value}); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Kept %s of %s in your keychain.\n", sanitize.Line(name), sanitize.Line(server))
	return nil
}

// runSecretMove keeps the keys a server's file holds in plain text in the
// keychain: mcptray's config refers to them from then on. Another app's
// file is not edited; the output says so, and what to do about it.
func runSecretMove(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usagef("name one server: mcptray secret move SERVER")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	res, err := b.MoveSecrets(ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "Kept %s of %s in your keychain; %s refers to it now.\n",
		sanitize.Line(strings.Join(res.Secrets, ", ")), sanitize.Line(res.Server), c.home(res.File))
	if res.Left != "" {
		fmt.Fprintf(c.Stdout, "%s still holds it in plain text: mcptray did not edit it. Remove the key from there (or the app's server, and connect the app to mcptray: mcptray connect APP).\n",
			sanitize.Line(c.home(res.Left)))
	}
	return nil
}

// readSecret reads the value of the secret called name: on a terminal it
// asks without echo; otherwise it takes the next line of stdin. It is
// never read from the command line, which the shell's history and other
// users' ps would show.
func (c *cmdContext) readSecret(name string) (string, error) {
	if f, ok := c.Stdin.(*os.File); ok && c.Interactive && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(c.Stderr, "%s (it is not shown as you type): ", sanitize.Line(name))
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(c.Stderr)
		if err != nil {
			return "", fmt.Errorf("reading %s from the terminal: %w", name, err)
		}
		if len(b) == 0 {
			return "", fmt.Errorf("nothing was entered for %s", name)
		}
		return string(b), nil
	}
	line, err := c.readLine()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("no value for %s on stdin; give it there, one line each, for example: printf '%%s\\n' \"$%s\" | mcptray …", name, name)
		}
		return "", fmt.Errorf("reading %s from stdin: %w", name, err)
	}
	if line == "" {
		return "", fmt.Errorf("the line given for %s on stdin is empty", name)
	}
	return line, nil
}

// readLine reads one line of stdin, without its line ending.
func (c *cmdContext) readLine() (string, error) {
	if c.Stdin == nil {
		return "", io.EOF
	}
	if c.lines == nil {
		c.lines = bufio.NewReaderSize(c.Stdin, 4096)
	}
	var b strings.Builder
	for {
		chunk, err := c.lines.ReadSlice('\n')
		b.Write(chunk)
		if b.Len() > maxSecretLine {
			return "", fmt.Errorf("the line is longer than %d KiB", maxSecretLine>>10)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || b.Len() == 0) {
			return "", err
		}
		return strings.TrimRight(b.String(), "\r\n"), nil
	}
}
