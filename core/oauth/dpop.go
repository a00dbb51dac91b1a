package oauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// DPoP (RFC 9449) binds a server's tokens to a key pair of mcptray's: every
// token request and every request to the server carries a fresh proof, a
// JWT signed with the private key, so a token that leaks is of no use
// without the key. mcptray uses it only where both ends take it: the
// authorization server's metadata offer it (dpop_signing_alg_values_supported
// with ES256), and the MCP server says it takes DPoP-bound tokens, in its
// protected resource metadata (RFC 9728) or with a DPoP challenge. Many
// authorization servers offer DPoP in front of servers that know only
// Bearer tokens; with those nothing changes. A server that refuses a bound
// token all the same is remembered, and signed in to without DPoP.

// dpopAlg is the one algorithm mcptray signs DPoP proofs with.
const dpopAlg = jose.ES256

// tokenTypeDPoP is the token_type of a DPoP-bound access token, and the
// Authorization scheme it is sent with.
const tokenTypeDPoP = "DPoP"

// dpopNonceHeader carries a server's nonce for the next proof (RFC 9449
// §8, §9).
const dpopNonceHeader = "DPoP-Nonce"

// errUseDPoPNonce is the error code of a server that wants a nonce in
// the proof.
const errUseDPoPNonce = "use_dpop_nonce"

// offersDPoP reports whether the authorization server binds tokens to a
// key with the algorithm mcptray signs with.
func (md *serverMetadata) offersDPoP() bool {
	return slices.Contains(md.DPoPSigningAlgValuesSupported, string(dpopAlg))
}

// resourceDPoP reports whether the protected resource takes tokens bound
// with mcptray's algorithm, by its metadata or its challenge (a DPoP one
// whose algs, if given, include it), and whether it takes only those
// (dpop_bound_access_tokens_required, or a challenge with DPoP and no
// Bearer).
func resourceDPoP(d *discovery, ch *transport.AuthError) (takes, requires bool) {
	if d.prm != nil {
		requires = d.prm.DPoPBoundAccessTokensRequired
		takes = requires || slices.Contains(d.prm.DPoPSigningAlgValuesSupported, string(dpopAlg))
	}
	if ch != nil && ch.Offers(tokenTypeDPoP) && (len(ch.DPoPAlgs) == 0 || slices.Contains(ch.DPoPAlgs, string(dpopAlg))) {
		takes = true
		requires = requires || !ch.Offers("Bearer")
	}
	return takes, requires
}

// chooseDPoP decides whether c's tokens are bound to mcptray's key: only
// when the authorization server offers DPoP and the resource takes it
// (resourceDPoP), and not when the resource refused a bound token before
// (c.DPoPRefused, carried over from the server's earlier client record),
// unless it now takes nothing else.
func (m *Manager) chooseDPoP(ctx context.Context, s *config.Server, d *discovery, ch *transport.AuthError, c *storedClient) {
	if old, _ := m.loadClient(ctx, s); old != nil && old.DPoPRefused {
		c.DPoPRefused = true
	}
	takes, requires := resourceDPoP(d, ch)
	if requires {
		c.DPoPRefused = false
	}
	c.DPoP = d.meta.offersDPoP() && takes && !c.DPoPRefused
	switch {
	case c.DPoP:
		m.log.Debug("binding the tokens to a key (DPoP)", "server", s.Name)
	case d.meta.offersDPoP() && c.DPoPRefused:
		m.log.Info("signing in without DPoP: the server refused a token bound to a key before", "server", s.Name)
	case d.meta.offersDPoP():
		m.log.Debug("the authorization server offers DPoP, but the server does not say it takes it; signing in with a plain token", "server", s.Name)
	}
}

// dpopKey is a server's DPoP key pair.
type dpopKey struct {
	priv   *ecdsa.PrivateKey
	signer jose.Signer
}

func newDPoPKey(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: dpopAlg, Key: priv}, opts)
	if err != nil {
		return nil, fmt.Errorf("preparing the DPoP key: %w", err)
	}
	return &dpopKey{priv: priv, signer: signer}, nil
}

// dpopClaims are a DPoP proof's claims (RFC 9449 §4.2).
type dpopClaims struct {
	ID       string           `json:"jti"`
	Method   string           `json:"htm"`
	URL      string           `json:"htu"`
	IssuedAt *jwt.NumericDate `json:"iat"`
	// AccessTokenHash is base64url(SHA-256(access token)), on requests
	// that carry one.
	AccessTokenHash string `json:"ath,omitempty"`
	Nonce           string `json:"nonce,omitempty"`
}

// proof returns a fresh DPoP proof for a request with method to target,
// bound to accessToken when it is not empty, with the server's nonce when
// there is one.
func (k *dpopKey) proof(method, target, accessToken, nonce string, now time.Time) (string, error) {
	htu, err := proofURL(target)
	if err != nil {
		return "", err
	}
	c := dpopClaims{
		ID: rand.Text(), Method: method, URL: htu, IssuedAt: jwt.NewNumericDate(now), Nonce: nonce,
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		c.AccessTokenHash = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	p, err := jwt.Signed(k.signer).Claims(c).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing the DPoP proof: %w", err)
	}
	return p, nil
}

// proofURL is a request's URL as a proof's htu: without query and fragment
// (RFC 9449 §4.2).
func proofURL(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "", errors.New("the request's address is not a URL")
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String(), nil
}

func dpopKeyKey(s *config.Server) secret.Key {
	return secret.Key{Server: ServerKey(s), Kind: secret.DPoPKey}
}

// dpopKey returns the server's DPoP key from the store; when there is none
// and create is true, it makes one and keeps it there first. It returns
// nil and no error when there is none and create is false.
func (m *Manager) dpopKey(ctx context.Context, s *config.Server, create bool) (*dpopKey, error) {
	ts := m.source(s)
	ts.keyMu.Lock()
	defer ts.keyMu.Unlock()
	if ts.dpop != nil {
		return ts.dpop, nil
	}
	b, err := m.opts.Store.Get(ctx, dpopKeyKey(s))
	switch {
	case err == nil:
		block, _ := pem.Decode(b)
		if block == nil {
			return nil, errors.New("reading the DPoP key from the keychain: it is not in PEM form")
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		priv, ok := k.(*ecdsa.PrivateKey)
		if err != nil || !ok || priv.Curve != elliptic.P256() {
			return nil, errors.New("reading the DPoP key from the keychain: it is not a P-256 key")
		}
		if ts.dpop, err = newDPoPKey(priv); err != nil {
			return nil, err
		}
		return ts.dpop, nil
	case !errors.Is(err, secret.ErrNotFound):
		return nil, fmt.Errorf("reading the DPoP key from the keychain: %w", err)
	case !create:
		return nil, nil
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key: %w", err)
	}
	k, err := newDPoPKey(priv)
	if err != nil {
		return nil, err
	}
	if err := m.opts.Store.Set(ctx, dpopKeyKey(s), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		return nil, fmt.Errorf("keeping the DPoP key in the keychain: %w", err)
	}
	ts.dpop = k
	m.log.Debug("made a DPoP key", "server", s.Name)
	return k, nil
}

// clientDPoPKey returns the key for c's token requests: nil for a client
// whose authorization server does not use DPoP.
func (m *Manager) clientDPoPKey(ctx context.Context, s *config.Server, c *storedClient) (*dpopKey, error) {
	if !c.DPoP {
		return nil, nil
	}
	return m.dpopKey(ctx, s, true)
}

// asNonce returns the last nonce the authorization server at u gave.
func (m *Manager) asNonce(u *url.URL) string {
	m.nonceMu.Lock()
	defer m.nonceMu.Unlock()
	return m.nonces[u.Scheme+"://"+u.Host]
}

func (m *Manager) setASNonce(u *url.URL, nonce string) {
	m.nonceMu.Lock()
	defer m.nonceMu.Unlock()
	if m.nonces == nil {
		m.nonces = map[string]string{}
	}
	m.nonces[u.Scheme+"://"+u.Host] = nonce
}

// dpopTripper puts a fresh DPoP proof on every token request, with the
// authorization server's nonce when it gave one, and sends the request once
// more with the new nonce when the server answers use_dpop_nonce (RFC 9449
// §8).
type dpopTripper struct {
	next http.RoundTripper
	key  *dpopKey
	m    *Manager
}

func (t dpopTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return t.next.RoundTrip(req)
	}
	nonce := t.m.asNonce(req.URL)
	for retried := false; ; retried = true {
		r, err := t.withProof(req, nonce, retried)
		if err != nil {
			return nil, err
		}
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := resp.Header.Get(dpopNonceHeader)
		if fresh != "" {
			t.m.setASNonce(req.URL, fresh)
		}
		if retried || resp.StatusCode != http.StatusBadRequest || fresh == "" || fresh == nonce || req.GetBody == nil {
			return resp, nil
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the token endpoint's answer: %w", err)
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != errUseDPoPNonce {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
		t.m.log.Debug("the authorization server asked for a DPoP nonce; asking again with it")
		nonce = fresh
	}
}

// withProof returns a copy of req with a new proof; again means the body
// has been sent once and must be read anew.
func (t dpopTripper) withProof(req *http.Request, nonce string, again bool) (*http.Request, error) {
	p, err := t.key.proof(req.Method, req.URL.String(), "", nonce, t.m.opts.Now())
	if err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	if again {
		if r.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("sending the token request again: %w", err)
		}
	}
	r.Header.Set("DPoP", p)
	return r, nil
}

// isDPoP reports whether a token type is DPoP's (case-insensitive, as token
// types are).
func isDPoP(tokenType string) bool { return strings.EqualFold(tokenType, tokenTypeDPoP) }
