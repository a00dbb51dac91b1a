// Package authserver is an OAuth authorization server and an MCP resource
// server for end-to-end sign-in tests, both real HTTP servers on 127.0.0.1.
//
// The authorization server publishes RFC 8414 metadata, registers clients
// dynamically (RFC 7591) with a client secret, runs the authorization code
// grant with PKCE S256 only, rotates refresh tokens and revokes the whole
// token family when a refresh token is used twice, as careful servers do,
// and revokes tokens on request (RFC 7009).
//
// It is also an identity provider for Cross-App Access: an authorization
// request with the openid scope gets an ID token (and keeps getting one on
// refresh), which the token endpoint exchanges for an ID-JAG (RFC 8693) and
// takes back as a JWT bearer grant (RFC 7523) for the MCP server: both
// roles in one server, trusting itself. Clients for this are added with
// AddClient.
// It answers the browser's authorization request at once, with no login
// page, so an HTTP client that follows redirects is the whole browser.
//
// The resource server is mcpserver's MCP server over streamable HTTP at
// /mcp, behind a bearer check that answers 401 with an RFC 9728
// resource_metadata challenge. SetDPoP makes the authorization server offer
// DPoP (RFC 9449) and the resource server take DPoP-bound tokens, or say so.
//
// Everything either server issues or is shown that must stay secret (codes,
// PKCE verifiers, tokens, client secrets) is recorded, so tests can look for
// it where it must never be.
package authserver

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/test/mcpserver"
)

// Servers are a running authorization server and the MCP server it
// protects.
type Servers struct {
	// Issuer is the authorization server's URL; MCPURL is the MCP
	// server's endpoint.
	Issuer, MCPURL string

	as, rs *httptest.Server
	mcp    http.Handler

	mu sync.Mutex
	// knobs
	accessTTL     time.Duration
	redirectError string
	redirectDesc  string
	beforeRefresh func()
	revokeStatus  int
	dpopOffered   bool
	resource      Resource
	// key signs ID tokens and ID-JAGs.
	key *ecdsa.PrivateKey
	// state
	clients  map[string]string // client id → secret
	codes    map[string]*grant
	refresh  map[string]*refreshToken
	access   map[string]*accessToken
	families map[int]bool // revoked
	nextFam  int
	// records
	secrets   []string
	uses      map[string]int // refresh token → times presented
	authorize int
	refreshes int
	reuses    int
	accepted  int
	issued    int
	revoked   int
	exchanges int
	bearers   int
	proofs    int      // token requests with a good DPoP proof
	dpopUsed  int      // MCP requests with a good DPoP-bound token and proof
	refused   []string // the schemes of the MCP requests refused with a token
}

type grant struct {
	clientID, challenge, redirectURI, resource string
	openid                                     bool
}

type refreshToken struct {
	family   int
	clientID string
	resource string
	openid   bool   // an identity provider sign-in: refreshes give ID tokens
	jkt      string // the DPoP key it is bound to, if any
}

type accessToken struct {
	family   int
	resource string
	expiry   time.Time
	jkt      string // the DPoP key it is bound to, if any
}

// Start starts both servers; Close stops them.
func Start() *Servers {
	s := &Servers{
		accessTTL: time.Hour,
		clients:   map[string]string{}, codes: map[string]*grant{},
		refresh: map[string]*refreshToken{}, access: map[string]*accessToken{},
		families: map[int]bool{}, uses: map[string]int{},
		key: newSigningKey(),
	}
	as := http.NewServeMux()
	as.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	as.HandleFunc("POST /register", s.register)
	as.HandleFunc("GET /authorize", s.authorizeHandler)
	as.HandleFunc("POST /token", s.token)
	as.HandleFunc("POST /revoke", s.revoke)
	s.as = httptest.NewServer(as)
	s.Issuer = s.as.URL

	s.mcp = server.NewStreamableHTTPServer(mcpserver.New(mcpserver.Options{}))
	rs := http.NewServeMux()
	rs.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.prm)
	rs.HandleFunc("/mcp", s.protected)
	s.rs = httptest.NewServer(rs)
	s.MCPURL = s.rs.URL + "/mcp"
	return s
}

// Close stops both servers.
func (s *Servers) Close() {
	s.rs.Close()
	s.as.Close()
}

// SetAccessTTL sets the lifetime of the access tokens issued from now on
// (an hour at first). mcptray refreshes a token a minute before it
// expires, or when a quarter of its lifetime is left if that is sooner.
func (s *Servers) SetAccessTTL(d time.Duration) {
	s.mu.Lock()
	s.accessTTL = d
	s.mu.Unlock()
}

// SetRedirectError makes the authorization endpoint send the browser back
// with this OAuth error (and description) instead of a code; "" undoes it.
func (s *Servers) SetRedirectError(code, description string) {
	s.mu.Lock()
	s.redirectError, s.redirectDesc = code, description
	s.mu.Unlock()
}

// BeforeRefresh sets a function called on each refresh request before it
// is answered, outside every lock: a test can hold a refresh there.
func (s *Servers) BeforeRefresh(f func()) {
	s.mu.Lock()
	s.beforeRefresh = f
	s.mu.Unlock()
}

// ExpireAccessTokens makes every access token issued so far expire now, on
// the server's side only: the client still believes them good, as after an
// early revocation or with clocks that disagree.
func (s *Servers) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.access {
		t.expiry = time.Now()
	}
}

// Stats is what the servers saw.
type Stats struct {
	// Authorizations is how many authorization requests came.
	Authorizations int
	// Refreshes is how many refresh requests came, good or not; Reuses
	// how many presented a refresh token already used.
	Refreshes, Reuses int
	// MaxUses is the most times one refresh token was presented.
	MaxUses int
	// Revoked is how many token families were revoked.
	Revoked int
	// Accepted is how many MCP requests carried a good token.
	Accepted int
	// Issued is how many token responses were issued, by any grant.
	Issued int
	// Revocations is how many tokens were revoked at the revocation
	// endpoint.
	Revocations int
	// TokenExchanges is how many ID tokens were exchanged for ID-JAGs;
	// JWTBearerGrants how many ID-JAGs were taken for access tokens.
	TokenExchanges, JWTBearerGrants int
	// DPoPProofs is how many token requests carried a good DPoP proof;
	// DPoPAccepted how many MCP requests a good DPoP-bound token and proof.
	DPoPProofs, DPoPAccepted int
	// Refused are the Authorization schemes of the MCP requests refused
	// although they carried a token, in order.
	Refused []string
}

// Stats returns what the servers saw so far.
func (s *Servers) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Authorizations: s.authorize, Refreshes: s.refreshes, Reuses: s.reuses, Accepted: s.accepted, Issued: s.issued, Revocations: s.revoked,
		TokenExchanges: s.exchanges, JWTBearerGrants: s.bearers,
		DPoPProofs: s.proofs, DPoPAccepted: s.dpopUsed, Refused: slices.Clone(s.refused)}
	for _, n := range s.uses {
		st.MaxUses = max(st.MaxUses, n)
	}
	for _, r := range s.families {
		if r {
			st.Revoked++
		}
	}
	return st
}

// Secrets returns every code, PKCE verifier, token and client secret the
// authorization server issued or was shown.
func (s *Servers) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.secrets...)
}

func (s *Servers) newSecret(prefix string) string {
	v := prefix + rand.Text()
	s.secrets = append(s.secrets, v)
	return v
}

func (s *Servers) metadata(w http.ResponseWriter, _ *http.Request) {
	md := map[string]any{
		"issuer":                                s.Issuer,
		"authorization_endpoint":                s.Issuer + "/authorize",
		"token_endpoint":                        s.Issuer + "/token",
		"registration_endpoint":                 s.Issuer + "/register",
		"revocation_endpoint":                   s.Issuer + "/revoke",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", grantTokenExchange, grantJWTBearer},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
		"scopes_supported":                      []string{"mcp"},
	}
	s.mu.Lock()
	if s.dpopOffered {
		md["dpop_signing_alg_values_supported"] = []string{"ES256", "RS256"}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, md)
}

func (s *Servers) prm(w http.ResponseWriter, _ *http.Request) {
	prm := map[string]any{
		"resource":              s.MCPURL,
		"authorization_servers": []string{s.Issuer},
		"scopes_supported":      []string{"mcp"},
	}
	s.mu.Lock()
	if s.resource != BearerOnly {
		prm["dpop_signing_alg_values_supported"] = []string{"ES256"}
		prm["dpop_bound_access_tokens_required"] = s.resource == DPoPRequired
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, prm)
}

func (s *Servers) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) != 1 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_redirect_uri"})
		return
	}
	s.mu.Lock()
	id := "client-" + rand.Text()
	secret := s.newSecret("cs-")
	s.clients[id] = secret
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_secret": secret, "redirect_uris": req.RedirectURIs,
		"token_endpoint_auth_method": "client_secret_basic",
		"grant_types":                []string{"authorization_code", "refresh_token"},
	})
}

func (s *Servers) authorizeHandler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || back.Scheme != "http" || back.Hostname() != "127.0.0.1" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE S256 is required", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.authorize++
	if _, ok := s.clients[q.Get("client_id")]; !ok {
		s.mu.Unlock()
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	}
	v := back.Query()
	v.Set("state", q.Get("state"))
	if s.redirectError != "" {
		v.Set("error", s.redirectError)
		if s.redirectDesc != "" {
			v.Set("error_description", s.redirectDesc)
		}
	} else {
		code := s.newSecret("code-")
		s.codes[code] = &grant{clientID: q.Get("client_id"), challenge: q.Get("code_challenge"),
			redirectURI: q.Get("redirect_uri"), resource: q.Get("resource"),
			openid: slices.Contains(strings.Fields(q.Get("scope")), "openid")}
		v.Set("code", code)
	}
	s.mu.Unlock()
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Servers) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	id, ok := s.client(r)
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	// jkt is the key the tokens are bound to: that of the request's DPoP
	// proof, where DPoP is offered.
	var jkt string
	s.mu.Lock()
	offered := s.dpopOffered
	s.mu.Unlock()
	if proof := r.Header.Get("DPoP"); proof != "" && offered {
		var err error
		if jkt, err = checkProof(proof, http.MethodPost, s.Issuer+"/token", ""); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_dpop_proof", "error_description": err.Error()})
			return
		}
		s.mu.Lock()
		s.proofs++
		s.mu.Unlock()
	}
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		s.exchange(w, r, id, jkt)
	case "refresh_token":
		s.mu.Lock()
		hook := s.beforeRefresh
		s.mu.Unlock()
		if hook != nil {
			hook()
		}
		s.refreshGrant(w, r, id, jkt)
	case grantTokenExchange:
		s.tokenExchange(w, r, id)
	case grantJWTBearer:
		s.jwtBearer(w, r)
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type"})
	}
}

// client returns the client a request authenticates as, with HTTP Basic
// and its client secret.
func (s *Servers) client(r *http.Request) (string, bool) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		return "", false
	}
	// RFC 6749 §2.3.1: form-encoded before base64.
	id, _ = url.QueryUnescape(id)
	secret, _ = url.QueryUnescape(secret)
	s.mu.Lock()
	want, known := s.clients[id]
	s.mu.Unlock()
	return id, known && subtle.ConstantTimeCompare([]byte(secret), []byte(want)) == 1
}

func (s *Servers) exchange(w http.ResponseWriter, r *http.Request, clientID, jkt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	code, verifier := r.Form.Get("code"), r.Form.Get("code_verifier")
	if verifier != "" {
		s.secrets = append(s.secrets, verifier)
	}
	g := s.codes[code]
	delete(s.codes, code) // one use only
	switch {
	case g == nil || g.clientID != clientID:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "unknown or used code"})
	case oauth2.S256ChallengeFromVerifier(verifier) != g.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
	case r.Form.Get("redirect_uri") != g.redirectURI:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "redirect_uri does not match"})
	case r.Form.Get("resource") != g.resource || g.resource != s.MCPURL && !g.openid:
		// Only an identity provider sign-in is for no resource.
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_target"})
	default:
		s.nextFam++
		s.issueLocked(w, s.nextFam, clientID, g.resource, g.openid, jkt)
	}
}

func (s *Servers) refreshGrant(w http.ResponseWriter, r *http.Request, clientID, jkt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshes++
	rt := r.Form.Get("refresh_token")
	s.uses[rt]++
	t := s.refresh[rt]
	switch {
	case t == nil || t.clientID != clientID:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "unknown refresh token"})
		return
	case s.uses[rt] > 1:
		// Reuse means a copy leaked or two clients raced: the family goes.
		s.reuses++
		s.families[t.family] = true
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "refresh token reused; every token of this sign-in is revoked"})
		return
	case s.families[t.family]:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "revoked"})
		return
	case r.Form.Get("resource") != t.resource:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_target"})
		return
	case t.jkt != "" && jkt != t.jkt:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "the refresh token is bound to another DPoP key"})
		return
	}
	s.issueLocked(w, t.family, clientID, t.resource, t.openid, jkt)
}

func (s *Servers) issueLocked(w http.ResponseWriter, family int, clientID, resource string, openid bool, jkt string) {
	s.issued++
	at, rt := s.newSecret("at-"), s.newSecret("rt-")
	s.access[at] = &accessToken{family: family, resource: resource, expiry: time.Now().Add(s.accessTTL), jkt: jkt}
	s.refresh[rt] = &refreshToken{family: family, clientID: clientID, resource: resource, openid: openid, jkt: jkt}
	tokenType := "Bearer"
	if jkt != "" {
		tokenType = "DPoP"
	}
	resp := map[string]any{
		"access_token": at, "token_type": tokenType, "refresh_token": rt,
		"expires_in": max(1, int(s.accessTTL/time.Second)), "scope": "mcp",
	}
	if openid {
		resp["scope"] = "openid"
		resp["id_token"] = s.idTokenLocked(clientID)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

// protected is the token check in front of the MCP server: Bearer tokens,
// or DPoP-bound ones with their proof (DPoPRequired).
func (s *Servers) protected(w http.ResponseWriter, r *http.Request) {
	header := r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(header, " ")
	s.mu.Lock()
	mode := s.resource
	t := s.access[token]
	s.mu.Unlock()
	want := "Bearer"
	if mode == DPoPRequired {
		want = "DPoP"
	}
	good := strings.EqualFold(scheme, want) && t != nil
	if good && mode == DPoPRequired {
		jkt, err := checkProof(r.Header.Get("DPoP"), r.Method, s.MCPURL, token)
		good = err == nil && jkt == t.jkt
	}
	s.mu.Lock()
	good = good && !s.families[t.family] && t.resource == s.MCPURL && time.Now().Before(t.expiry)
	switch {
	case good && mode == DPoPRequired:
		s.accepted++
		s.dpopUsed++
	case good:
		s.accepted++
	case header != "":
		s.refused = append(s.refused, scheme)
	}
	s.mu.Unlock()
	if !good {
		ch := want + ` resource_metadata="` + s.rs.URL + `/.well-known/oauth-protected-resource/mcp", scope="mcp"`
		if mode == DPoPRequired {
			ch += `, algs="ES256"`
		}
		if header != "" {
			ch += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", ch)
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "unauthorized"})
		return
	}
	s.mcp.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// RequireSessionBus skips a test that needs the keychain where there is no
// D-Bus session to find one on, and fails it under CI, where make test
// must provide one.
func RequireSessionBus(t testing.TB) {
	t.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return
	}
	const msg = "no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
