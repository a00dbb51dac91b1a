package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

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
	tok, err := m.clientCredentialsToken(ctx, c)
	if err != nil {
		return err
	}
	if err := m.saveClient(ctx, s, c); err != nil {
		return err
	}
	return m.saveTokens(ctx, s, tok)
}

// clientCredentialsToken runs the client-credentials grant for c.
func (m *Manager) clientCredentialsToken(ctx context.Context, c *storedClient) (*storedTokens, error) {
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
	tok, err := conf.Token(m.oauthContext(ctx, nil))
	if err != nil {
		return nil, tokenError("getting a token with the client credentials", err)
	}
	return fromOAuth2(tok, nil, c.TokenURL, c.Resource), nil
}

// clientAssertion is the private_key_jwt assertion (RFC 7523 §2.2): the
// client is its issuer and subject, the authorization server its audience.
func clientAssertion(c *storedClient, now time.Time) (string, error) {
	key, err := parsePrivateKey(c.PrivateKeyPEM)
	if err != nil {
		return "", err
	}
	alg := c.SigningAlg
	if alg == "" {
		switch key.(type) {
		case *ecdsa.PrivateKey:
			alg = "ES256"
		default:
			alg = "RS256"
		}
	}
	aud := c.Issuer
	if aud == "" {
		aud = c.TokenURL
	}
	claims := map[string]any{
		"iss": c.ClientID, "sub": c.ClientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": rand.Text(),
	}
	return signJWT(key, alg, map[string]any{"alg": alg, "typ": "JWT"}, claims)
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

// signJWT signs a compact JWS with ES256 or RS256.
func signJWT(key crypto.Signer, alg string, header, claims map[string]any) (string, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if alg != "ES256" {
			return "", fmt.Errorf("an EC key signs ES256, not %s", alg)
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", err
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		sig = append(pad(r, size), pad(s, size)...)
	case *rsa.PrivateKey:
		if alg != "RS256" {
			return "", fmt.Errorf("an RSA key signs RS256, not %s", alg)
		}
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("mcptray cannot sign %s with this key", strings.ToUpper(alg))
	}
	return input + "." + enc.EncodeToString(sig), nil
}

func pad(n *big.Int, size int) []byte {
	b := make([]byte, size)
	return n.FillBytes(b)
}
