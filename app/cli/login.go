package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
	"github.com/mcptray/mcptray/keychain"
)

// maxSignIns bounds the sign-ins one command makes: a server that keeps
// refusing every new sign-in (403 insufficient_scope forever) must not
// send the person to the browser again and again.
const maxSignIns = 3

// secretStore is where tokens and registered clients are kept: the
// operating system's keychain, and nowhere else.
func (c *cmdContext) secretStore() secret.Store { return keychain.New("mcptray") }

// oauthManager returns the sign-in manager for a command. extra adds
// settings given on the command line to the server's config.
//
// MCPTRAY_BROWSER names a program that is given the sign-in URL instead of
// the system browser (tests use `curl -sL -o /dev/null`); it is run
// directly, never through a shell. MCPTRAY_CLIENT_METADATA_URL is the https
// URL of a Client ID Metadata Document to use as the client id with servers
// that support them.
func (c *cmdContext) oauthManager(extra *oauth.Settings) *oauth.Manager {
	opts := oauth.Options{
		Store:   c.secretStore(),
		Logger:  c.logger(),
		LockDir: filepath.Join(c.paths.Dir(), "locks"),
	}
	if v, _ := c.Lookup("MCPTRAY_BROWSER"); strings.TrimSpace(v) != "" {
		opts.Browser = oauth.CommandBrowser(oauth.ParseBrowserCommand(v))
	}
	if v, _ := c.Lookup("MCPTRAY_CLIENT_METADATA_URL"); v != "" {
		opts.ClientMetadataURL = v
	}
	if extra != nil {
		opts.Settings = func(s *config.Server) oauth.Settings { return merge(oauth.SettingsFrom(s), *extra) }
	}
	return oauth.New(opts)
}

// merge lays the command line's settings over the config's.
func merge(base, over oauth.Settings) oauth.Settings {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&base.ClientID, over.ClientID)
	set(&base.ClientSecret, over.ClientSecret)
	set(&base.AuthServerMetadataURL, over.AuthServerMetadataURL)
	set(&base.PrivateKeyPEM, over.PrivateKeyPEM)
	set(&base.SigningAlg, over.SigningAlg)
	set(&base.IdPTokenURL, over.IdPTokenURL)
	set(&base.IdPClientID, over.IdPClientID)
	set(&base.IdPIDToken, over.IdPIDToken)
	if over.Grant != "" {
		base.Grant = over.Grant
	}
	if len(over.Scopes) > 0 {
		base.Scopes = over.Scopes
	}
	if over.CallbackPort != 0 {
		base.CallbackPort = over.CallbackPort
	}
	return base
}

// tokenSources gives a connection manager the sign-in tokens of remote
// servers.
func tokenSources(auth *oauth.Manager) func(s *config.Server) transport.TokenSource {
	return func(s *config.Server) transport.TokenSource {
		if !s.Transport.Remote() {
			return nil
		}
		return auth.TokenSource(s)
	}
}

func runLogin(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("login", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var st oauth.Settings
	var secretFile, keyFile, idTokenFile, scope string
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
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() != 1 {
		return usagef("name one server, or give its URL")
	}
	if clientCredentials && xaa {
		return usagef("choose --client-credentials or --xaa, not both")
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
	st.Scopes = strings.Fields(scope)
	switch {
	case clientCredentials:
		st.Grant = oauth.ClientCredentials
	case xaa:
		st.Grant = oauth.CrossAppAccess
	}
	s, err := c.remoteTarget(fs.Arg(0))
	if err != nil {
		return err
	}
	if st.Grant == "" || st.Grant == oauth.AuthorizationCode {
		fmt.Fprintf(c.Stderr, "Opening your browser to sign in to %s…\n", sanitize.Line(s.Name))
	}
	if err := c.oauthManager(&st).SignIn(ctx, s, nil); err != nil {
		return fmt.Errorf("signing in to %s: %w", sanitize.Line(s.Name), err)
	}
	fmt.Fprintf(c.Stdout, "Signed in to %s.\n", sanitize.Line(s.Name))
	return nil
}

func runLogout(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("name one server, or give its URL")
	}
	s, err := c.remoteTarget(args[0])
	if err != nil {
		return err
	}
	if err := c.oauthManager(nil).SignOut(ctx, s); err != nil {
		return fmt.Errorf("signing out of %s: %w", sanitize.Line(s.Name), err)
	}
	fmt.Fprintf(c.Stdout, "Signed out of %s.\n", sanitize.Line(s.Name))
	return nil
}

// remoteTarget finds the remote server a command names.
func (c *cmdContext) remoteTarget(name string) (*config.Server, error) {
	set, _, err := c.target(name)
	if err != nil {
		return nil, err
	}
	if len(set.Servers) == 0 {
		return nil, fmt.Errorf("%s is built into mcptray; only remote servers sign in", sanitize.Line(name))
	}
	s := set.Servers[0].Server
	if !s.Transport.Remote() {
		return nil, fmt.Errorf("%s runs on this computer; only remote servers sign in", sanitize.Line(s.Name))
	}
	return &s, nil
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
// sign in, signs in (the browser opens) and runs the command again; at most
// maxSignIns times. A 403 insufficient_scope signs in again for the larger
// scope (step-up).
func withSignIn(run func(context.Context, *cmdContext, []string) error) func(context.Context, *cmdContext, []string) error {
	return func(ctx context.Context, c *cmdContext, args []string) error {
		for attempt := 0; ; attempt++ {
			err := run(ctx, c, args)
			if err == nil || !conn.IsNeedsAuth(err) || attempt == maxSignIns {
				return err
			}
			name := firstOperand(args)
			s, terr := c.remoteTarget(name)
			if terr != nil {
				return err
			}
			var ch *transport.AuthError
			if !errors.As(err, &ch) || ch.Status == 0 {
				ch = nil
			}
			// A token mcptray thought good was refused: a refresh may do,
			// without sending the person to the browser. Not for a
			// step-up, which needs the person to grant more.
			if ch == nil || ch.ErrorCode != "insufficient_scope" {
				if c.oauthManager(nil).RefreshNow(ctx, s) == nil {
					continue
				}
			}
			fmt.Fprintf(c.Stderr, "%s wants you to sign in; opening your browser…\n", sanitize.Line(s.Name))
			if serr := c.oauthManager(nil).SignIn(ctx, s, ch); serr != nil {
				return fmt.Errorf("signing in to %s: %w", sanitize.Line(s.Name), serr)
			}
		}
	}
}

func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}
