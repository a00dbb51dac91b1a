package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// storedTokens is a server's sign-in as kept under secret.Tokens.
type storedTokens struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"`
	TokenURL     string    `json:"token_url,omitempty"`
	Resource     string    `json:"resource,omitempty"`
	// IssuedAt is when the token came, so that its lifetime is known.
	IssuedAt time.Time `json:"issued_at,omitzero"`
}

// fresh reports whether the access token can still be sent at now.
func (t *storedTokens) fresh(now time.Time) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || now.Add(t.margin()).Before(t.Expiry))
}

// margin is how long before its expiry the token is renewed: refreshMargin,
// or a quarter of its lifetime when that is shorter, so that a short-lived
// token (20 s) serves most of its life rather than being renewed on every
// request. A token saved without its issue time gets refreshMargin.
func (t *storedTokens) margin() time.Duration {
	if t.IssuedAt.IsZero() || !t.Expiry.After(t.IssuedAt) {
		return refreshMargin
	}
	return min(refreshMargin, t.Expiry.Sub(t.IssuedAt)/refreshShare)
}

func fromOAuth2(tok *oauth2.Token, previous *storedTokens, tokenURL, resource string) *storedTokens {
	st := &storedTokens{
		AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken,
		Expiry: tok.Expiry, TokenURL: tokenURL, Resource: resource,
		// The wall clock, as golang.org/x/oauth2 used it to turn
		// expires_in into Expiry a moment ago.
		IssuedAt: time.Now(),
	}
	if s, ok := tok.Extra("scope").(string); ok {
		st.Scope = s
	}
	if previous != nil {
		if st.RefreshToken == "" {
			st.RefreshToken = previous.RefreshToken // not rotated: keep it
		}
		if st.Scope == "" {
			st.Scope = previous.Scope
		}
	}
	return st
}

func (m *Manager) loadTokens(ctx context.Context, s *config.Server) (*storedTokens, error) {
	t, err := loadJSON[storedTokens](ctx, m.opts.Store, tokensKey(s))
	if t != nil && t.AccessToken == "" {
		return nil, nil // as good as none: the person signs in again
	}
	return t, err
}

func (m *Manager) saveTokens(ctx context.Context, s *config.Server, t *storedTokens) error {
	if err := storeJSON(ctx, m.opts.Store, tokensKey(s), t, "the sign-in"); err != nil {
		return err
	}
	m.source(s).remember(t)
	return nil
}

// tokenSource is one server's transport.TokenSource. It keeps the token in
// memory for cacheTTL, refreshes it ahead of expiry under the server's
// refresh lock, and saves every new token (and rotated refresh token) at
// once, before it is used.
type tokenSource struct {
	m      *Manager
	server *config.Server
	key    string

	mu       sync.Mutex // one refresh at a time in this process
	cached   *storedTokens
	loadedAt time.Time
	// noneAt is when the store last said "not signed in" (zero: not known).
	noneAt time.Time

	keyMu sync.Mutex // guards dpop, apart from mu: token requests made under mu need the key
	// dpop is the server's DPoP key once read or made.
	dpop *dpopKey
}

var _ transport.ProofSource = (*tokenSource)(nil)

func (ts *tokenSource) remember(t *storedTokens) {
	ts.mu.Lock()
	ts.cached, ts.loadedAt, ts.noneAt = t, ts.m.opts.Now(), time.Time{}
	ts.mu.Unlock()
}

func (ts *tokenSource) forget() {
	ts.mu.Lock()
	ts.cached, ts.loadedAt, ts.noneAt = nil, time.Time{}, time.Time{}
	ts.mu.Unlock()
	ts.keyMu.Lock()
	ts.dpop = nil
	ts.keyMu.Unlock()
}

// Token returns the access token to send, "" when the person has not
// signed in (the server's 401 then starts the sign-in), or an
// *transport.AuthError when the sign-in is gone for good.
func (ts *tokenSource) Token(ctx context.Context) (string, error) {
	t, err := ts.current(ctx)
	if t == nil || err != nil {
		return "", err
	}
	return t.AccessToken, nil
}

// Authorization is Token for one request: the Authorization header to send
// and, for a token bound to mcptray's key, a fresh DPoP proof for method
// and target with the server's nonce in it (RFC 9449 §7).
func (ts *tokenSource) Authorization(ctx context.Context, method, target, nonce string) (authorization, proof string, err error) {
	t, err := ts.current(ctx)
	if t == nil || t.AccessToken == "" || err != nil {
		return "", "", err
	}
	if !isDPoP(t.TokenType) {
		return "Bearer " + t.AccessToken, "", nil
	}
	key, err := ts.m.dpopKey(ctx, ts.server, false)
	if err != nil {
		return "", "", err
	}
	if key == nil {
		return "", "", &transport.AuthError{Err: errors.New("the key this sign-in is bound to is gone from the keychain; sign in again")}
	}
	p, err := key.proof(method, target, t.AccessToken, nonce, ts.m.opts.Now())
	if err != nil {
		return "", "", err
	}
	return tokenTypeDPoP + " " + t.AccessToken, p, nil
}

// DPoPRefused is told by the transport that the server refused a token
// bound to mcptray's key as if it knew only Bearer tokens. It remembers
// that in the client record (so that every later sign-in and token is
// without DPoP), revokes and forgets the bound tokens and the key, and
// says so in the log. A machine identity then gets a plain token at the
// next Authorization; a person signs in again, once.
func (ts *tokenSource) DPoPRefused(ctx context.Context) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	m, s := ts.m, ts.server
	c, err := m.loadClient(ctx, s)
	if err != nil {
		m.log.Warn("the server refused a token bound to a key (DPoP); reading the sign-in to stop binding them", "server", s.Name, "err", err)
		return
	}
	if c == nil {
		c = &storedClient{}
	}
	if c.DPoP || !c.DPoPRefused {
		c.DPoP, c.DPoPRefused = false, true
		if err := m.saveClient(ctx, s, c); err != nil {
			m.log.Warn("the server refused a token bound to a key (DPoP); remembering it", "server", s.Name, "err", err)
		}
		m.log.Warn("the server refused a token bound to a key (DPoP) as if it took only Bearer tokens; "+
			"mcptray signs in to it without DPoP from now on", "server", s.Name)
	}
	// Another process may have signed in again already: only bound
	// tokens go.
	if tok, err := m.loadTokens(ctx, s); err == nil && tok != nil && isDPoP(tok.TokenType) {
		if err := m.revokeStored(ctx, s); err != nil {
			m.log.Debug("revoking the refused sign-in", "server", s.Name, "err", err)
		}
		if err := m.opts.Store.Delete(ctx, tokensKey(s)); err != nil {
			m.log.Warn("forgetting the refused sign-in", "server", s.Name, "err", err)
		}
	}
	if err := m.opts.Store.Delete(ctx, dpopKeyKey(s)); err != nil {
		m.log.Debug("forgetting the DPoP key", "server", s.Name, "err", err)
	}
	ts.cached, ts.loadedAt, ts.noneAt = nil, time.Time{}, time.Time{}
	ts.keyMu.Lock()
	ts.dpop = nil
	ts.keyMu.Unlock()
}

// current returns the sign-in to send, nil when there is none; see Token.
func (ts *tokenSource) current(ctx context.Context) (*storedTokens, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.m.opts.Now()
	if ts.cached != nil && ts.cached.fresh(now) && now.Sub(ts.loadedAt) < cacheTTL {
		return ts.cached, nil
	}
	if !ts.noneAt.IsZero() && now.Sub(ts.noneAt) < noneTTL {
		return nil, nil
	}
	tok, err := ts.m.loadTokens(ctx, ts.server)
	if secret.IsUnavailable(err) {
		// No keychain, so no sign-in: a server that needs none still
		// works, and one that does answers 401, where the person is told.
		ts.m.log.Debug("no keychain; sending no token", "server", ts.server.Name, "err", err)
		ts.noneAt = now
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sign-in from the keychain: %w", err)
	}
	ts.cached, ts.loadedAt = tok, now
	if tok == nil {
		c, _ := ts.m.loadClient(ctx, ts.server)
		if c != nil && (c.Grant == ClientCredentials || c.Grant == CrossAppAccess || c.Grant == JWTBearer) {
			// A machine identity needs no person: get a token now.
			return ts.renewLocked(ctx, nil)
		}
		ts.noneAt = now
		return nil, nil
	}
	if tok.fresh(now) {
		return tok, nil
	}
	return ts.renewLocked(ctx, tok)
}

// renewLocked gets a new token under the cross-process refresh lock.
// ts.mu is held.
func (ts *tokenSource) renewLocked(ctx context.Context, stale *storedTokens) (*storedTokens, error) {
	unlock, err := lockRefresh(ctx, ts.m.opts.LockDir, ts.key)
	if err != nil {
		return nil, err
	}
	defer unlock()

	// Another process may have refreshed while this one waited: its
	// token is in the store, and the refresh token this one holds may
	// already be spent.
	tok, err := ts.m.loadTokens(ctx, ts.server)
	if err != nil {
		return nil, fmt.Errorf("reading the sign-in from the keychain: %w", err)
	}
	now := ts.m.opts.Now()
	// A different token than the one found stale is another process's
	// refresh: use it. The same one, still fresh by its saved expiry, is
	// one the server rejected (RefreshNow): renew it.
	if tok != nil && tok.fresh(now) && (stale == nil || tok.AccessToken != stale.AccessToken) {
		ts.cached, ts.loadedAt = tok, now
		return tok, nil
	}
	if tok == nil {
		tok = stale
	}
	next, err := ts.m.renew(ctx, ts.server, tok)
	if err != nil {
		if isInvalidGrant(err) || errors.Is(err, errNoRefresh) {
			ts.m.log.Info("the sign-in expired; deleting it", "server", ts.server.Name)
			_ = ts.m.opts.Store.Delete(ctx, tokensKey(ts.server))
			ts.cached = nil
			return nil, &transport.AuthError{Err: errors.New("the sign-in expired or was revoked; sign in again")}
		}
		if tok != nil && tok.AccessToken != "" && (tok.Expiry.IsZero() || now.Before(tok.Expiry)) {
			// Still valid for a little while: use it, try again later.
			ts.m.log.Warn("refreshing the sign-in failed; using the current token", "server", ts.server.Name, "err", err)
			return tok, nil
		}
		return nil, err
	}
	// Saved before it is used, and before the lock is released: a
	// rotated refresh token that only lived in memory would be lost.
	// (Not saveTokens: it takes ts.mu, which is held.)
	if err := storeJSON(ctx, ts.m.opts.Store, tokensKey(ts.server), next, "the refreshed sign-in"); err != nil {
		return nil, err
	}
	ts.cached, ts.loadedAt = next, now
	return next, nil
}

var errNoRefresh = errors.New("the sign-in expired and cannot be renewed without you")

// ErrAuthServerMoved says the server now names another authorization server
// than the one its sign-in came from (SEP-2352): that sign-in, and the
// client registered there, are of no use with it; only a new sign-in is.
var ErrAuthServerMoved = errors.New("the server now signs in with another authorization server")

// checkAuthServer asks the server's protected resource metadata whether the
// authorization server the stored client belongs to is still one it names.
// Only a definite "no" is an error (ErrAuthServerMoved): a server without
// the metadata, or one that cannot be reached, leaves the sign-in as it is.
func (m *Manager) checkAuthServer(ctx context.Context, s *config.Server) error {
	c, err := m.loadClient(ctx, s)
	if err != nil || c == nil || c.Issuer == "" || m.opts.Settings(s).AuthServerMetadataURL != "" {
		return nil
	}
	su, err := url.Parse(httpURL(s.URL))
	if err != nil || su.Host == "" {
		return nil
	}
	var prm resourceMetadata
	if found, _ := m.firstFound(ctx, "protected resource metadata", prmCandidates(su, nil), nil, &prm); !found || len(prm.AuthorizationServers) == 0 {
		return nil
	}
	for _, as := range prm.AuthorizationServers {
		if sameIssuer(as, c.Issuer) {
			return nil
		}
	}
	m.log.Info("the server moved to another authorization server; signing in there", "server", s.Name,
		"from", redact(c.Issuer), "to", redact(prm.AuthorizationServers[0]))
	return ErrAuthServerMoved
}

// RefreshNow renews a server's sign-in at once, whatever its saved expiry
// says: for a server that rejected a token mcptray still thought good (an
// early revocation, clocks that disagree). It runs under the same
// cross-process lock as any refresh. An error means the person has to sign
// in again; after invalid_grant the dead sign-in is deleted. A server whose
// protected resource metadata now names another authorization server is
// not refreshed at the old one: the error is then ErrAuthServerMoved, and
// SignIn registers with the new one.
func (m *Manager) RefreshNow(ctx context.Context, s *config.Server) error {
	ts := m.source(s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	tok, err := m.loadTokens(ctx, s)
	if err != nil {
		return err
	}
	if tok == nil || tok.RefreshToken == "" {
		return errNoRefresh
	}
	if err := m.checkAuthServer(ctx, s); err != nil {
		return err
	}
	stale := *tok
	stale.Expiry = time.Unix(1, 0) // what the server says, not what we saved
	ts.cached = nil
	_, err = ts.renewLocked(ctx, &stale)
	return err
}

// renew gets a new token: a refresh, or a new client-credentials or
// Cross-App Access grant for machine identities.
func (m *Manager) renew(ctx context.Context, s *config.Server, old *storedTokens) (*storedTokens, error) {
	c, err := m.loadClient(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("reading the registered client from the keychain: %w", err)
	}
	if c == nil {
		return nil, errNoRefresh
	}
	switch c.Grant {
	case ClientCredentials:
		return m.clientCredentialsToken(ctx, s, c)
	case CrossAppAccess:
		return m.xaaToken(ctx, s, c)
	case JWTBearer:
		return m.jwtBearerToken(ctx, s, c, c.Assertion, "presenting the workload's token")
	}
	if old == nil || old.RefreshToken == "" {
		return nil, errNoRefresh
	}
	tokenURL := old.TokenURL
	if tokenURL == "" {
		tokenURL = c.TokenURL
	}
	conf := &oauth2.Config{
		ClientID: c.ClientID, ClientSecret: c.secret(),
		Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: c.authStyle()},
	}
	var extra url.Values
	if old.Resource != "" {
		extra = url.Values{"resource": {old.Resource}}
	}
	// An expired copy: oauth2 refreshes at once.
	expired := &oauth2.Token{RefreshToken: old.RefreshToken, Expiry: time.Unix(1, 0)}
	key, err := m.clientDPoPKey(ctx, s, c)
	if err != nil {
		return nil, err
	}
	tok, err := conf.TokenSource(m.tokenContext(ctx, extra, key), expired).Token()
	if err != nil {
		return nil, tokenError("refreshing the sign-in", err)
	}
	m.log.Debug("refreshed the sign-in", "server", s.Name, "rotated", tok.RefreshToken != "" && tok.RefreshToken != old.RefreshToken)
	return fromOAuth2(tok, old, tokenURL, old.Resource), nil
}

// grantedScopes returns the scopes of the stored sign-in, for a step-up.
func (m *Manager) grantedScopes(ctx context.Context, s *config.Server) []string {
	t, err := m.loadTokens(ctx, s)
	if err != nil || t == nil {
		return nil
	}
	return strings.Fields(t.Scope)
}
