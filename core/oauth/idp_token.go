package oauth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/transport"
)

// errIdPSignInNeeded says there is no identity provider sign-in to
// exchange, or it can no longer be renewed.
var errIdPSignInNeeded = errors.New("sign in to your identity provider again")

// take keeps a token response from the identity provider: its tokens, and
// the ID token with its expiry. A refresh that brings no new ID token
// keeps the old one.
func (t *storedIdP) take(tok *oauth2.Token, tokenURL string) error {
	var previous *storedTokens
	if t.AccessToken != "" {
		previous = &t.storedTokens
	}
	id, _ := tok.Extra("id_token").(string)
	if id == "" {
		if t.IDToken == "" {
			return errors.New("the identity provider gave no ID token; mcptray's scopes there must include openid")
		}
		id = t.IDToken
	}
	t.storedTokens = *fromOAuth2(tok, previous, tokenURL, "")
	t.IDToken = id
	if exp, ok := idTokenExpiry(id); ok {
		t.Expiry = exp
	}
	return nil
}

// idTokenAlgs are the JWS algorithms an ID token may be signed with.
var idTokenAlgs = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// idTokenExpiry reads when an ID token expires. Its signature is not
// checked: mcptray got it straight from the identity provider's token
// endpoint over TLS (OpenID Connect Core §3.1.3.7 lets that stand in for
// the signature), only reads when to renew it, and the servers it is
// exchanged at verify it.
func idTokenExpiry(raw string) (time.Time, bool) {
	tok, err := jwt.ParseSigned(raw, idTokenAlgs)
	if err != nil {
		return time.Time{}, false
	}
	var c jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil || c.Expiry == nil {
		return time.Time{}, false
	}
	return c.Expiry.Time(), true
}

// idpSignIn returns the identity provider sign-in with an ID token good for
// an exchange, refreshing it first when it is near its end, under the same
// cross-process lock as any refresh. No sign-in, or one that cannot be
// renewed, is a *transport.AuthError: only the person can sign in again.
func (m *Manager) idpSignIn(ctx context.Context) (*IdentityProvider, *storedIdP, error) {
	p, err := m.identityProvider()
	if err != nil {
		return nil, nil, err
	}
	m.idpMu.Lock()
	defer m.idpMu.Unlock()
	key := idpKey(p)
	t, err := loadJSON[storedIdP](ctx, m.opts.Store, key)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the identity provider sign-in from the keychain: %w", err)
	}
	if t == nil || t.IDToken == "" {
		return nil, nil, &transport.AuthError{Err: errIdPSignInNeeded}
	}
	if t.fresh(m.opts.Now()) {
		return p, t, nil
	}
	unlock, err := lockRefresh(ctx, m.opts.LockDir, key.Server)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	// Another process may have refreshed while this one waited.
	if again, err := loadJSON[storedIdP](ctx, m.opts.Store, key); err == nil && again != nil &&
		again.IDToken != t.IDToken && again.fresh(m.opts.Now()) {
		return p, again, nil
	}
	if t.RefreshToken == "" {
		return nil, nil, &transport.AuthError{Err: errIdPSignInNeeded}
	}
	client := idpClient(p, t)
	conf := &oauth2.Config{
		ClientID: client.ClientID, ClientSecret: client.secret(),
		Endpoint: oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: client.authStyle()},
	}
	expired := &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)}
	tok, err := conf.TokenSource(m.oauthContext(ctx, nil), expired).Token()
	if err != nil {
		if isInvalidGrant(err) {
			m.log.Info("the identity provider sign-in expired; deleting it", "issuer", redact(t.Issuer))
			_ = m.opts.Store.Delete(ctx, key)
			return nil, nil, &transport.AuthError{Err: errIdPSignInNeeded}
		}
		return nil, nil, tokenError("refreshing the identity provider sign-in", err)
	}
	if err := t.take(tok, t.TokenURL); err != nil {
		return nil, nil, err
	}
	if err := storeJSON(ctx, m.opts.Store, key, t, "the identity provider sign-in"); err != nil {
		return nil, nil, err
	}
	m.log.Debug("refreshed the identity provider sign-in", "issuer", redact(t.Issuer))
	return p, t, nil
}
