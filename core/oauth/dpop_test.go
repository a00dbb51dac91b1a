package oauth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// verifyProof checks a DPoP proof as a server does (RFC 9449 §4.3) and
// returns its claims and the thumbprint of its key (the token's cnf.jkt).
func verifyProof(proof, method, htu, accessToken string) (dpopClaims, string, error) {
	var c dpopClaims
	if proof == "" {
		return c, "", errors.New("no DPoP proof")
	}
	jws, err := jose.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return c, "", err
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" {
		return c, "", fmt.Errorf("typ is %v", h.ExtraHeaders[jose.HeaderType])
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return c, "", errors.New("no public jwk header")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return c, "", err
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return c, "", err
	}
	var ath string
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		ath = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	switch {
	case c.ID == "":
		return c, "", errors.New("no jti")
	case c.Method != method:
		return c, "", fmt.Errorf("htm %q, want %q", c.Method, method)
	case c.URL != htu:
		return c, "", fmt.Errorf("htu %q, want %q", c.URL, htu)
	case c.IssuedAt == nil || time.Since(c.IssuedAt.Time()).Abs() > time.Minute:
		return c, "", errors.New("iat missing or far off")
	case c.AccessTokenHash != ath:
		return c, "", fmt.Errorf("ath %q, want %q", c.AccessTokenHash, ath)
	}
	thumb, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return c, base64.RawURLEncoding.EncodeToString(thumb), err
}

func TestDPoPProof(t *testing.T) {
	t.Parallel()
	m := New(Options{Store: newMemStore()})
	s := &config.Server{Name: "remote", Transport: config.HTTP, URL: "https://mcp.example/mcp"}
	k, err := m.dpopKey(context.Background(), s, true)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := k.proof("POST", "https://mcp.example/mcp?session=1#frag", "the-token", "n1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := verifyProof(p1, "POST", "https://mcp.example/mcp", "the-token")
	if err != nil {
		t.Fatalf("the proof does not verify: %v", err)
	}
	if c.Nonce != "n1" {
		t.Errorf("nonce = %q, want n1", c.Nonce)
	}
	p2, _ := k.proof("POST", "https://mcp.example/mcp", "the-token", "", time.Now())
	c2, _, err := verifyProof(p2, "POST", "https://mcp.example/mcp", "the-token")
	if err != nil || c2.ID == c.ID {
		t.Errorf("a second proof: %v, jti %q after %q; want a fresh one", err, c2.ID, c.ID)
	}
	if strings.Contains(p1, `"d"`) {
		t.Error("the proof carries the private key")
	}
	// The key is kept, and read back the same by another Manager.
	k2, err := New(Options{Store: m.opts.Store}).dpopKey(context.Background(), s, false)
	if err != nil || k2 == nil || !k2.priv.Equal(k.priv) {
		t.Fatalf("reading the key back: %v; want the same key", err)
	}
}

// dpopResource is a protected resource that takes only DPoP-bound tokens
// of as, with a proof carrying its nonce.
type dpopResource struct {
	as  *testAS
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	bodies   []string
	served   int
}

func newDPoPResource(t *testing.T, as *testAS) *dpopResource {
	rs := &dpopResource{as: as}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.requests++
		rs.bodies = append(rs.bodies, string(body))
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if scheme != "DPoP" {
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		c, jkt, err := verifyProof(r.Header.Get("DPoP"), r.Method, rs.srv.URL+"/mcp", token)
		as.mu.Lock()
		bound := as.jkt
		as.mu.Unlock()
		if err != nil || jkt != bound {
			t.Errorf("the MCP request's proof: %v (key %s, token bound to %s)", err, jkt, bound)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if c.Nonce != "rs-nonce" {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce needed"`)
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rs.served++
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rs.srv.Close)
	return rs
}

func TestSignInDPoP(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop, as.prmDPoP = true, true
	store := newMemStore()
	var log bytes.Buffer
	m := newTestManager(t, store, t.TempDir(), &log)
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	as.mu.Lock()
	proofs := as.dpopProofs
	as.mu.Unlock()
	if proofs != 1 {
		t.Fatalf("token requests with a valid proof and the nonce: %d, want 1", proofs)
	}
	if _, err := store.Get(ctx, dpopKeyKey(s)); err != nil {
		t.Fatalf("the DPoP key is not in the store: %v", err)
	}

	// Requests to the server: the DPoP scheme, a proof each, the server's
	// nonce asked for once and then remembered.
	rs := newDPoPResource(t, as)
	hc := transport.NewHTTPClient(transport.HTTPOptions{Tokens: m.TokenSource(s)})
	for i := range 2 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
		resp, err := hc.Post(rs.srv.URL+"/mcp?x=1", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
	}
	rs.mu.Lock()
	requests, served, bodies := rs.requests, rs.served, rs.bodies
	rs.mu.Unlock()
	if served != 2 || requests != 3 {
		t.Errorf("served %d of %d requests; want 2 of 3 (one refused for its nonce, sent again)", served, requests)
	}
	if len(bodies) > 1 && bodies[0] != bodies[1] {
		t.Errorf("the request sent again had body %q, not %q", bodies[1], bodies[0])
	}

	// A refresh is bound to the same key too.
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow: %v", err)
	}
	as.mu.Lock()
	proofs = as.dpopProofs
	as.mu.Unlock()
	if proofs != 2 {
		t.Errorf("token requests with a valid proof: %d, want 2 (sign-in, refresh)", proofs)
	}
	if strings.Contains(log.String(), "PRIVATE KEY") || strings.Contains(log.String(), "access-") {
		t.Errorf("the log holds a key or token:\n%s", log.String())
	}

	// Signing out forgets the key with the tokens.
	_ = m.SignOut(ctx, s)
	if _, err := store.Get(ctx, dpopKeyKey(s)); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("after sign-out the DPoP key is still stored (%v)", err)
	}
}
