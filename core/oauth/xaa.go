package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// Cross-App Access (SEP-990) grant and token types.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// signInXAA signs in with Cross-App Access: the person's identity provider
// ID token is exchanged there for an ID-JAG (RFC 8693) naming this server's
// authorization server and resource, which that authorization server takes
// as a JWT bearer grant (RFC 7523). One identity provider sign-in unlocks
// every server that trusts it; no browser opens for the server.
//
// The ID token is the Settings' (given on the command line) when there is
// one, else the identity provider sign-in's (Options.IdP); when there is
// no such sign-in yet, the person signs in to the identity provider first.
func (m *Manager) signInXAA(ctx context.Context, s *config.Server, d *discovery, st Settings, ch *transport.AuthError) error {
	if err := d.meta.checkEndpoints(false); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	if st.ClientID == "" {
		return errors.New("Cross-App Access needs the client id mcptray has at the server's authorization server")
	}
	c := &storedClient{
		ClientID: st.ClientID, ClientSecret: st.ClientSecret, Source: sourceConfig, Grant: CrossAppAccess,
		Issuer: d.meta.Issuer, TokenURL: d.meta.TokenEndpoint, Resource: d.resource,
		Scopes:        chooseScopes(st.Scopes, ch, d, nil),
		RevocationURL: d.meta.revocationURL(),
	}
	switch {
	case st.IdPIDToken != "":
		if err := checkEndpoint("identity provider token endpoint", st.IdPTokenURL); err != nil {
			return &SignInError{Reason: err.Error()}
		}
		c.IdPTokenURL, c.IdPClientID, c.IdPIDToken = st.IdPTokenURL, st.IdPClientID, st.IdPIDToken
	case m.idp() != nil:
		if _, _, err := m.idpSignIn(ctx); transport.IsAuthError(err) {
			if err := m.SignInIdP(ctx); err != nil {
				return fmt.Errorf("signing in to the identity provider: %w", err)
			}
		} else if err != nil {
			return err
		}
		c.IdPIssuer, c.IdPClientID = m.idp().Issuer, m.idp().ClientID
	default:
		return errors.New("Cross-App Access needs an identity provider to sign in to, or an identity provider ID token")
	}
	c.AuthMethod = chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, c.ClientSecret != "")
	m.chooseDPoP(ctx, s, d, ch, c)
	tok, err := m.xaaToken(ctx, s, c)
	if err != nil {
		return err
	}
	if err := m.saveClient(ctx, s, c); err != nil {
		return err
	}
	return m.saveTokens(ctx, s, tok)
}

// xaaToken runs both steps of Cross-App Access for c.
func (m *Manager) xaaToken(ctx context.Context, s *config.Server, c *storedClient) (*storedTokens, error) {
	octx := m.oauthContext(ctx, nil)
	exchange := clientcredentials.Config{
		ClientID: c.IdPClientID, TokenURL: c.IdPTokenURL, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{
			"grant_type":           {grantTokenExchange},
			"requested_token_type": {tokenTypeIDJAG},
			"audience":             {c.Issuer},
			"resource":             {c.Resource},
			"subject_token":        {c.IdPIDToken},
			"subject_token_type":   {tokenTypeIDToken},
		},
	}
	if c.IdPIssuer != "" {
		if p := m.idp(); p == nil || p.Issuer != c.IdPIssuer || p.ClientID != c.IdPClientID {
			return nil, &transport.AuthError{Err: errors.New("the identity provider this sign-in came from is no longer set up; sign in again")}
		}
		p, t, err := m.idpSignIn(ctx)
		if err != nil {
			return nil, err
		}
		if err := checkEndpoint("identity provider token endpoint", t.TokenURL); err != nil {
			return nil, &SignInError{Reason: err.Error()}
		}
		idp := idpClient(p, t)
		exchange.TokenURL, exchange.ClientSecret, exchange.AuthStyle = t.TokenURL, idp.secret(), idp.authStyle()
		exchange.EndpointParams.Set("subject_token", t.IDToken)
	}
	if len(c.Scopes) > 0 {
		exchange.EndpointParams.Set("scope", strings.Join(c.Scopes, " "))
	}
	jag, err := exchange.Token(octx)
	if err != nil {
		return nil, tokenError("exchanging the identity provider's token", err)
	}
	if t, _ := jag.Extra("issued_token_type").(string); t != "" && t != tokenTypeIDJAG {
		return nil, errors.New("the identity provider gave another kind of token than an ID-JAG")
	}
	return m.jwtBearerToken(ctx, s, c, jag.AccessToken, "presenting the identity provider's grant")
}

// jwtBearerToken presents assertion to c's authorization server as an
// RFC 7523 JWT bearer grant (§2.1), authenticating c as its AuthMethod
// says; what names the step in an error.
func (m *Manager) jwtBearerToken(ctx context.Context, s *config.Server, c *storedClient, assertion, what string) (*storedTokens, error) {
	bearer := clientcredentials.Config{
		ClientID: c.ClientID, ClientSecret: c.secret(), TokenURL: c.TokenURL, Scopes: c.Scopes,
		AuthStyle:      c.authStyle(),
		EndpointParams: url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}},
	}
	if c.Grant == JWTBearer && c.Resource != "" {
		// RFC 8707; Cross-App Access names the resource in the ID-JAG.
		bearer.EndpointParams.Set("resource", c.Resource)
	}
	key, err := m.clientDPoPKey(ctx, s, c)
	if err != nil {
		return nil, err
	}
	tok, err := bearer.Token(m.tokenContext(ctx, nil, key))
	if err != nil {
		return nil, tokenError(what, err)
	}
	return fromOAuth2(tok, nil, c.TokenURL, c.Resource), nil
}
