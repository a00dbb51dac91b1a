package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// jwtBearerAssertion is RFC 7523's client assertion type.
const jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// signInClientCredentials gets a token with the client-credentials grant
// (no person, no browser), authenticating with the client secret or a
// private_key_jwt assertion, and keeps the client so later tokens need no
// sign-in either.
func (m *Manager) signInClientCredentials(ctx context.Context, s *config.Server, d *discovery, st Settings, ch *transport.AuthError) error {
	if err := d.meta.checkEndpoints(false); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	if st.ClientID == "" {
		return errors.New("the client-credentials sign-in needs a client id")
	}
	c := &storedClient{
		ClientID: st.ClientID, ClientSecret: st.ClientSecret, Source: sourceConfig, Grant: ClientCredentials,
		Issuer: d.meta.Issuer, TokenURL: d.meta.TokenEndpoint, Resource: d.resource,
		Scopes: chooseScopes(st.Scopes, ch, d, nil), PrivateKeyPEM: st.PrivateKeyPEM, SigningAlg: st.SigningAlg,
		RevocationURL: d.meta.revocationURL(),
	}
	if c.PrivateKeyPEM != "" {
		c.AuthMethod = authPrivateKeyJWT
	} else {
		c.AuthMethod = chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, true)
	}
	m.chooseDPoP(ctx, s, d, ch, c)
	tok, err := m.clientCredentialsToken(ctx, s, c)
	if err != nil {
		return err
	}
	if err := m.saveClient(ctx, s, c); err != nil {
		return err
	}
	return m.saveTokens(ctx, s, tok)
}

// clientCredentialsToken runs the client-credentials grant for c.
func (m *Manager) clientCredentialsToken(ctx context.Context, s *config.Server, c *storedClient) (*storedTokens, error) {
	conf := clientcredentials.Config{
		ClientID: c.ClientID, ClientSecret: c.secret(), TokenURL: c.TokenURL, Scopes: c.Scopes,
		EndpointParams: url.Values{}, AuthStyle: c.authStyle(),
	}
	if c.Resource != "" {
		conf.EndpointParams.Set("resource", c.Resource)
	}
	if c.AuthMethod == authPrivateKeyJWT {
		assertion, err := clientAssertion(c, time.Now())
		if err != nil {
			return nil, err
		}
		conf.EndpointParams.Set("client_assertion_type", jwtBearerAssertion)
		conf.EndpointParams.Set("client_assertion", assertion)
	}
	key, err := m.clientDPoPKey(ctx, s, c)
	if err != nil {
		return nil, err
	}
	tok, err := conf.Token(m.tokenContext(ctx, nil, key))
	if err != nil {
		return nil, tokenError("getting a token with the client credentials", err)
	}
	return fromOAuth2(tok, nil, c.TokenURL, c.Resource), nil
}

// clientAssertion is the private_key_jwt assertion (RFC 7523 §2.2): the
// client is its issuer and subject, the authorization server its audience.
// It is signed with the configured algorithm, else the one the key's type
// (and curve) calls for.
func clientAssertion(c *storedClient, now time.Time) (string, error) {
	key, err := parsePrivateKey(c.PrivateKeyPEM)
	if err != nil {
		return "", err
	}
	alg := jose.SignatureAlgorithm(c.SigningAlg)
	if alg == "" {
		if alg, err = defaultAlg(key); err != nil {
			return "", err
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: this key cannot sign %s: %w", alg, err)
	}
	aud := c.Issuer
	if aud == "" {
		aud = c.TokenURL
	}
	claims := jwt.Claims{
		Issuer: c.ClientID, Subject: c.ClientID, Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID: rand.Text(),
	}
	assertion, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing the client assertion with %s: %w", alg, err)
	}
	return assertion, nil
}

// defaultAlg is the JWS algorithm for a key whose config names none.
func defaultAlg(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", errors.New("the private key's elliptic curve is not one JWS signs with (P-256, P-384, P-521)")
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", errors.New("the private key is neither EC, RSA nor Ed25519")
}

func parsePrivateKey(pemText string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("the private key is not in PEM form")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, errors.New("the private key cannot sign")
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("the private key is neither PKCS#8, EC nor PKCS#1")
}
