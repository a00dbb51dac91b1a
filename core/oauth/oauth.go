package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// Defaults.
const (
	// DefaultSignInTimeout is how long a sign-in waits for the person to
	// finish in the browser.
	DefaultSignInTimeout = 5 * time.Minute
	// RequestTimeout bounds each OAuth HTTP request (metadata, registration,
	// token), each on its own.
	RequestTimeout = 30 * time.Second
	// refreshMargin is how long before its expiry a token is refreshed, so
	// that a request never leaves with a token about to lapse; at most,
	// since a short-lived token is refreshed when 1/refreshShare of its
	// lifetime is left.
	refreshMargin = time.Minute
	refreshShare  = 4
	// cacheTTL is how long a token read from the store is trusted before it
	// is read again: another mcptray process may have refreshed it, or the
	// person may have signed in or out there.
	cacheTTL = time.Minute
	// noneTTL is how long "not signed in" is trusted: long enough that a
	// remote server without sign-in costs no keychain read per request,
	// short enough that a sign-in made in another mcptray process shows
	// at once.
	noneTTL = 5 * time.Second
)

// ClientName is how mcptray names itself to authorization servers.
const ClientName = "mcptray"

// Grant is how mcptray gets a server's tokens.
type Grant string

const (
	// AuthorizationCode is the person signing in in the browser (default).
	AuthorizationCode Grant = "authorization_code"
	// ClientCredentials is a machine identity: a client secret or a
	// private_key_jwt assertion, no person involved.
	ClientCredentials Grant = "client_credentials"
	// CrossAppAccess exchanges an identity provider's ID token for an
	// ID-JAG (RFC 8693) and presents it to the server's authorization
	// server (RFC 7523 JWT bearer grant).
	CrossAppAccess Grant = "xaa"
	// JWTBearer presents a JWT the workload was given by its platform
	// (workload identity federation, SEP-1933) as an RFC 7523 JWT bearer
	// grant: no person, no client secret.
	JWTBearer Grant = "jwt_bearer"
)

// Settings are what a sign-in to one server needs to know beyond what the
// server says itself: the config's "oauth" block, and what a person gave
// on the command line. The secrets in it (ClientSecret, PrivateKeyPEM,
// IdPIDToken, Assertion) are stored in the keychain with the client, never
// elsewhere.
type Settings struct {
	ClientID              string
	ClientSecret          string
	Scopes                []string
	AuthServerMetadataURL string
	CallbackPort          int
	Grant                 Grant

	// PrivateKeyPEM (PKCS#8) and SigningAlg (a JWS algorithm such as
	// ES256 or RS256; empty means the one the key calls for) make the
	// client-credentials grant authenticate with private_key_jwt.
	PrivateKeyPEM string
	SigningAlg    string

	// IdPTokenURL, IdPClientID and IdPIDToken are the identity provider's
	// token endpoint, mcptray's client id there and the person's ID token,
	// for Cross-App Access.
	IdPTokenURL string
	IdPClientID string
	IdPIDToken  string

	// Assertion is the workload's JWT, for the JWT bearer grant.
	Assertion string
}

// SettingsFrom reads a server's "oauth" config block.
func SettingsFrom(s *config.Server) Settings {
	if s.OAuth == nil {
		return Settings{}
	}
	o := s.OAuth
	st := Settings{
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes,
		AuthServerMetadataURL: o.AuthServerMetadataURL, CallbackPort: o.CallbackPort,
	}
	if o.XAA {
		st.Grant = CrossAppAccess
	}
	return st
}

// Options configure a Manager.
type Options struct {
	// Store keeps tokens and registered clients. Required.
	Store  secret.Store
	Logger *slog.Logger
	// Browser opens the authorization URL; nil means the system browser.
	Browser Browser
	// LockDir is where the refresh lock files go (mcptray's config folder);
	// empty means refreshes are serialised only within this process.
	LockDir string
	// ClientMetadataURL is the https URL of mcptray's Client ID Metadata
	// Document, used as the client id with servers that support them;
	// empty means Dynamic Client Registration is used instead.
	ClientMetadataURL string
	// Settings returns a server's sign-in settings; nil means SettingsFrom.
	Settings func(s *config.Server) Settings
	// SignInTimeout bounds the wait for the browser; zero means
	// DefaultSignInTimeout.
	SignInTimeout time.Duration
	// Transport sends the OAuth requests; nil means a clone of
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IdP is the person's identity provider, which servers with the
	// Cross-App Access grant exchange the sign-in of (SignInIdP); nil
	// means none, and such servers need an ID token in their Settings.
	IdP *IdentityProvider
}

// Manager signs in to servers and gives their tokens. It is safe for
// concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	sources map[string]*tokenSource // by server key

	idpMu sync.Mutex // one identity provider refresh at a time

	nonceMu sync.Mutex
	// nonces are the DPoP nonces authorization servers gave, by origin.
	nonces map[string]string
}

// New returns a Manager.
func New(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Browser == nil {
		opts.Browser = SystemBrowser()
	}
	if opts.Settings == nil {
		opts.Settings = SettingsFrom
	}
	if opts.SignInTimeout == 0 {
		opts.SignInTimeout = DefaultSignInTimeout
	}
	if opts.Transport == nil {
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			opts.Transport = dt.Clone()
		} else {
			opts.Transport = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Manager{opts: opts, log: opts.Logger, sources: map[string]*tokenSource{}}
}

// ServerKey is the id under which a server's secrets are kept: a hash of its
// signature, so that neither its URL nor its name appears in the keychain.
func ServerKey(s *config.Server) string {
	sum := sha256.Sum256([]byte(config.Signature(s)))
	return hex.EncodeToString(sum[:16])
}

func tokensKey(s *config.Server) secret.Key {
	return secret.Key{Server: ServerKey(s), Kind: secret.Tokens}
}

func clientKey(s *config.Server) secret.Key {
	return secret.Key{Server: ServerKey(s), Kind: secret.Client}
}

// TokenSource returns the bearer token source for a remote server: the
// stored token, refreshed when it is about to expire; no token (and no
// error) when the person has not signed in, so that the server's 401 starts
// the sign-in.
func (m *Manager) TokenSource(s *config.Server) transport.TokenSource {
	return m.source(s)
}

func (m *Manager) source(s *config.Server) *tokenSource {
	key := ServerKey(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.sources[key]
	if ts == nil {
		srv := *s
		ts = &tokenSource{m: m, server: &srv, key: key}
		m.sources[key] = ts
	}
	return ts
}

// SignOut revokes a server's tokens at its authorization server, when that
// offers revocation (RFC 7009), and forgets them and the registered client.
// They are forgotten even when the revocation fails; the error then wraps
// ErrNotRevoked, and says so.
func (m *Manager) SignOut(ctx context.Context, s *config.Server) error {
	if m.opts.Store == nil {
		return errNoStore
	}
	revokeErr := m.revokeStored(ctx, s)
	err := m.opts.Store.Delete(ctx, tokensKey(s))
	if err == nil || !secret.IsUnavailable(err) {
		// With no keychain the others would only say the same again.
		err = errors.Join(err, m.opts.Store.Delete(ctx, clientKey(s)), m.opts.Store.Delete(ctx, dpopKeyKey(s)))
	}
	m.source(s).forget()
	if err != nil {
		return fmt.Errorf("forgetting the sign-in: %w", err)
	}
	if revokeErr != nil {
		m.log.Warn("signed out on this computer, but the authorization server did not confirm it revoked the sign-in", "server", s.Name, "err", revokeErr)
		return fmt.Errorf("%w: %w", ErrNotRevoked, revokeErr)
	}
	return nil
}

// SignedIn reports whether tokens are stored for s.
func (m *Manager) SignedIn(ctx context.Context, s *config.Server) (bool, error) {
	if m.opts.Store == nil {
		return false, errNoStore
	}
	_, err := m.opts.Store.Get(ctx, tokensKey(s))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, secret.ErrNotFound):
		return false, nil
	}
	return false, err
}

var errNoStore = &secret.UnavailableError{Reason: "no secret store was given"}
