package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/secret"
)

// IdentityProvider is the person's identity provider for Cross-App Access:
// a setting of the person, not of one server. mcptray signs in there once,
// in the browser, and every server whose config asks for Cross-App Access
// (oauth.xaa) exchanges that sign-in for its own tokens, opening no browser
// of its own.
type IdentityProvider struct {
	// Issuer is the identity provider's issuer URL; its metadata is read
	// from the RFC 8414 or OpenID Connect well-known URLs for it.
	Issuer string
	// ClientID is mcptray's client at the identity provider, registered
	// there by an administrator; ClientSecret is its secret, if it has one.
	ClientID     string
	ClientSecret string
	// Scopes are asked for at sign-in; empty means openid, with
	// offline_access when the identity provider offers it.
	Scopes []string
	// CallbackPort is the loopback port registered with the identity
	// provider; 0 means one the system picks.
	CallbackPort int
}

// IdPTokens is the kind of secret the identity provider sign-in is kept
// under.
const IdPTokens = secret.IdPTokens

// SetIdentityProvider changes the identity provider (nil: none), as when
// the person's config changes.
func (m *Manager) SetIdentityProvider(p *IdentityProvider) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.IdP = p
}

// idp returns the identity provider now set, or nil.
func (m *Manager) idp() *IdentityProvider {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.IdP
}

// ErrNoIdentityProvider says Cross-App Access has no identity provider set
// up to sign in to.
var ErrNoIdentityProvider = errors.New("no identity provider is set up (its issuer and mcptray's client id there)")

// storedIdP is the identity provider sign-in. Its Expiry is the ID
// token's, which is what the servers' exchanges need.
type storedIdP struct {
	storedTokens
	IDToken       string `json:"id_token"`
	Issuer        string `json:"issuer"`
	AuthMethod    string `json:"auth_method,omitempty"`
	RevocationURL string `json:"revocation_url,omitempty"`
}

// idpKey is where the sign-in at p is kept: a hash of its issuer and
// client id, so that neither appears in the keychain.
func idpKey(p *IdentityProvider) secret.Key {
	sum := sha256.Sum256([]byte(p.Issuer + "\n" + p.ClientID))
	return secret.Key{Server: "idp-" + hex.EncodeToString(sum[:16]), Kind: IdPTokens}
}

// identityProvider returns the configured identity provider, or why there
// is none.
func (m *Manager) identityProvider() (*IdentityProvider, error) {
	p := m.idp()
	if p == nil || p.Issuer == "" || p.ClientID == "" {
		return nil, ErrNoIdentityProvider
	}
	if m.opts.Store == nil {
		return nil, errNoStore
	}
	return p, nil
}

// idpClient is mcptray's client at the identity provider, as the token
// requests present it.
func idpClient(p *IdentityProvider, t *storedIdP) *storedClient {
	return &storedClient{ClientID: p.ClientID, ClientSecret: p.ClientSecret, AuthMethod: t.AuthMethod, RevocationURL: t.RevocationURL}
}

// SignInIdP signs the person in to the identity provider (Options.IdP) in
// the browser, with PKCE S256 and the loopback listener, and keeps its
// tokens, ID token included, in the store. It waits at most
// Options.SignInTimeout for the person; cancel ctx to give up.
func (m *Manager) SignInIdP(ctx context.Context) error {
	p, err := m.identityProvider()
	if err != nil {
		return err
	}
	md, err := m.idpMetadata(ctx, p)
	if err != nil {
		return err
	}
	if !md.supportsS256() {
		return &SignInError{Reason: "the identity provider does not offer PKCE with S256; mcptray will not sign in without it"}
	}
	if err := md.checkEndpoints(true); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	if err := checkOpenable(md.AuthorizationEndpoint); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	lb, err := listenLoopback(p.CallbackPort)
	if err != nil {
		return err
	}
	defer lb.close()

	t := &storedIdP{Issuer: md.Issuer, AuthMethod: chooseAuthMethod(md.TokenEndpointAuthMethodsSupported, p.ClientSecret != ""), RevocationURL: md.revocationURL()}
	client := idpClient(p, t)
	conf := &oauth2.Config{
		ClientID: client.ClientID, ClientSecret: client.secret(),
		Endpoint:    oauth2.Endpoint{AuthURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint, AuthStyle: client.authStyle()},
		RedirectURL: lb.redirectURI,
		Scopes:      idpScopes(p, md),
	}
	verifier := oauth2.GenerateVerifier()
	lb.state = rand.Text()
	lb.issuer = md.Issuer
	lb.issRequired = md.AuthorizationResponseISSSupported
	authURL := conf.AuthCodeURL(lb.state, oauth2.S256ChallengeOption(verifier))
	if err := checkOpenable(authURL); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	lb.serve()

	wctx, cancel := context.WithTimeout(ctx, m.opts.SignInTimeout)
	defer cancel()
	m.log.Info("opening the browser to sign in to the identity provider", "issuer", redact(md.Issuer))
	if err := m.opts.Browser(wctx, authURL); err != nil {
		return err
	}
	code, err := lb.wait(wctx)
	if err != nil {
		return err
	}
	tok, err := conf.Exchange(m.oauthContext(ctx, nil), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return tokenError("getting the identity provider's tokens", err)
	}
	if err := t.take(tok, md.TokenEndpoint); err != nil {
		return err
	}
	if err := storeJSON(ctx, m.opts.Store, idpKey(p), t, "the identity provider sign-in"); err != nil {
		return err
	}
	m.log.Info("signed in to the identity provider", "issuer", redact(md.Issuer))
	return nil
}

// SignOutIdP revokes the identity provider sign-in there, when it offers
// revocation, and forgets it. As with SignOut, it is forgotten even when
// the revocation fails, and the error then wraps ErrNotRevoked.
func (m *Manager) SignOutIdP(ctx context.Context) error {
	p, err := m.identityProvider()
	if err != nil {
		return err
	}
	m.idpMu.Lock()
	defer m.idpMu.Unlock()
	var revokeErr error
	if t, _ := loadJSON[storedIdP](ctx, m.opts.Store, idpKey(p)); t != nil && t.RevocationURL != "" && t.RefreshToken != "" {
		revokeErr = m.revoke(ctx, idpClient(p, t), t.RefreshToken, "refresh_token")
	}
	if err := m.opts.Store.Delete(ctx, idpKey(p)); err != nil {
		return fmt.Errorf("forgetting the identity provider sign-in: %w", err)
	}
	if revokeErr != nil {
		return fmt.Errorf("%w: %w", ErrNotRevoked, revokeErr)
	}
	return nil
}

// idpMetadata reads the identity provider's metadata, refusing metadata
// for another issuer (RFC 8414 §3.3).
func (m *Manager) idpMetadata(ctx context.Context, p *IdentityProvider) (*serverMetadata, error) {
	iu, err := url.Parse(p.Issuer)
	if err != nil || iu.Host == "" {
		return nil, fmt.Errorf("the identity provider's address %q is not a URL", redact(p.Issuer))
	}
	var md serverMetadata
	found, err := m.firstFound(ctx, "identity provider metadata", asCandidates(iu),
		func(u string) error { return checkEndpoint("metadata", u) }, &md)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("the identity provider %s publishes no metadata (RFC 8414 or OpenID)", redact(p.Issuer))
	}
	if !sameIssuer(md.Issuer, p.Issuer) {
		return nil, fmt.Errorf("%w: it names %s, not %s; mcptray will not sign in", ErrIssuerMismatch, redact(md.Issuer), redact(p.Issuer))
	}
	return &md, nil
}

// idpScopes are the scopes asked of the identity provider: the setting's,
// else openid; with offline_access when it is offered, so the sign-in
// lasts.
func idpScopes(p *IdentityProvider, md *serverMetadata) []string {
	if len(p.Scopes) > 0 {
		return slices.Clone(p.Scopes)
	}
	out := []string{"openid"}
	if slices.Contains(md.ScopesSupported, offlineAccess) {
		out = append(out, offlineAccess)
	}
	return out
}
