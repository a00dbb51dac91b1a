package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// maxSignIns bounds the sign-ins one command makes: a server that keeps
// refusing every new sign-in (403 insufficient_scope forever) must not
// send the person to the browser again and again.
const maxSignIns = 3

func runLogin(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var st service.SignInSettings
	var secretFile, keyFile, idTokenFile, assertionFile, scope string
	var clientCredentials, xaa bool
	fs.StringVar(&st.ClientID, "client-id", "", "")
	fs.StringVar(&secretFile, "client-secret-file", "", "")
	fs.StringVar(&scope, "scope", "", "")
	fs.IntVar(&st.CallbackPort, "callback-port", 0, "")
	fs.StringVar(&st.AuthServerMetadataURL, "auth-server-metadata-url", "", "")
	fs.BoolVar(&clientCredentials, "client-credentials", false, "")
	fs.StringVar(&keyFile, "private-key-file", "", "")
	fs.StringVar(&st.SigningAlg, "signing-alg", "", "")
	fs.BoolVar(&xaa, "xaa", false, "")
	fs.StringVar(&st.IdPTokenURL, "idp-token-url", "", "")
	fs.StringVar(&st.IdPClientID, "idp-client-id", "", "")
	fs.StringVar(&idTokenFile, "idp-id-token-file", "", "")
	fs.StringVar(&assertionFile, "jwt-bearer-assertion-file", "", "")
	idp := fs.Bool("idp", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if *idp {
		if fs.NFlag() != 1 || fs.NArg() != 0 {
			return usagef("--idp signs in to your identity provider, and takes nothing else")
		}
		return c.idpSignIn(ctx, true)
	}
	if fs.NArg() != 1 {
		return usagef("name one server, or give its URL")
	}
	if n := countTrue(clientCredentials, xaa, assertionFile != ""); n > 1 {
		return usagef("choose one of --client-credentials, --xaa and --jwt-bearer-assertion-file")
	}
	// Secrets come from files (or - for stdin), never from the command
	// line, where every user of the computer can read them.
	var err error
	if st.ClientSecret, err = readSecretFile(c, secretFile); err != nil {
		return err
	}
	if st.PrivateKeyPEM, err = readSecretFile(c, keyFile); err != nil {
		return err
	}
	if st.IdPIDToken, err = readSecretFile(c, idTokenFile); err != nil {
		return err
	}
	if st.Assertion, err = readSecretFile(c, assertionFile); err != nil {
		return err
	}
	st.Scopes = strings.Fields(scope)
	switch {
	case clientCredentials:
		st.Grant = service.ClientCredentials
	case xaa:
		st.Grant = service.CrossAppAccess
	case assertionFile != "":
		st.Grant = service.JWTBearer
	}
	target := fs.Arg(0)
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	var opts service.SignInOptions
	if fs.NFlag() > 0 {
		opts.Settings = &st
	}
	c.signingIn = target
	if err := b.SignIn(ctx, target, opts); err != nil {
		return signInError("signing in to", target, err)
	}
	fmt.Fprintf(c.Stdout, "Signed in to %s.\n", sanitize.Line(displayName(target)))
	return nil
}

func runLogout(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 1 && args[0] == "--idp" {
		return c.idpSignIn(ctx, false)
	}
	if len(args) != 1 {
		return usagef("name one server, or give its URL")
	}
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	if err := b.SignOut(ctx, args[0]); err != nil {
		return signInError("signing out of", args[0], err)
	}
	fmt.Fprintf(c.Stdout, "Signed out of %s.\n", sanitize.Line(displayName(args[0])))
	return nil
}

// countTrue returns how many of bs are true.
func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func readSecretFile(c *cmdContext, path string) (string, error) {
	switch path {
	case "":
		return "", nil
	case "-":
		b, err := io.ReadAll(io.LimitReader(c.Stdin, 1<<20))
		return strings.TrimSpace(string(b)), err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// withSignIn runs a command that connects to one server (its first
// argument that is not a flag) and, when the server wants the person to
// sign in, signs in and runs the command again; at most maxSignIns times.
// The sign-in refreshes a saved one first and opens the browser only when
// that does not do; a 403 insufficient_scope signs in for the larger scope
// (step-up). One backend serves every attempt, so the server's last
// challenge is known to the next sign-in.
func withSignIn(run func(context.Context, *cmdContext, []string) error) func(context.Context, *cmdContext, []string) error {
	return func(ctx context.Context, c *cmdContext, args []string) error {
		name := firstOperand(args)
		b, done, err := c.backend(ctx, []string{name})
		if err != nil {
			return err
		}
		defer done()
		c.open = b
		defer func() { c.open = nil }()
		for attempt := 0; ; attempt++ {
			err := run(ctx, c, args)
			if err == nil || !service.IsNeedsSignIn(err) || attempt == maxSignIns {
				return err
			}
			c.signingIn = name
			if serr := b.SignIn(ctx, name, service.SignInOptions{}); serr != nil {
				if service.CodeOf(serr) == service.NotAllowed {
					return err
				}
				return signInError("signing in to", name, serr)
			}
		}
	}
}

// idpSignIn signs in to (or out of) the identity provider of the config.
func (c *cmdContext) idpSignIn(ctx context.Context, in bool) error {
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	if !in {
		if err := b.SignOutIdP(ctx); err != nil {
			return signInError("signing out of", "your identity provider", err)
		}
		fmt.Fprintln(c.Stdout, "Signed out of your identity provider.")
		return nil
	}
	c.signingIn = "your identity provider"
	if err := b.SignInIdP(ctx); err != nil {
		return signInError("signing in to", "your identity provider", err)
	}
	fmt.Fprintln(c.Stdout, "Signed in to your identity provider; servers set up for Cross-App Access sign in with it.")
	return nil
}

// signInError says what went wrong; a server that does not exist or
// cannot sign in is said as it is, without "signing in to".
func signInError(what, target string, err error) error {
	switch service.CodeOf(err) {
	case service.NotFound, service.NotAllowed, service.Invalid:
		return err
	}
	return fmt.Errorf("%s %s: %w", what, sanitize.Line(displayName(target)), err)
}

func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}
