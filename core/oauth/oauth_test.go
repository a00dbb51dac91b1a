package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// memStore is an in-memory secret.Store for tests.
type memStore struct {
	mu sync.Mutex
	m  map[secret.Key][]byte
}

var _ secret.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{m: map[secret.Key][]byte{}} }

func (s *memStore) Get(_ context.Context, k secret.Key) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		return nil, secret.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (s *memStore) Set(_ context.Context, k secret.Key, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = bytes.Clone(v)
	return nil
}

func (s *memStore) Delete(_ context.Context, k secret.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

func (s *memStore) dump() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, v := range s.m {
		b.Write(v)
	}
	return b.String()
}

// testAS is a real authorization server and protected resource on one
// httptest server, with knobs for each way a server can go wrong.
type testAS struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	expiresIn int
	// challenges by code, for PKCE.
	challenges map[string]string
	resources  map[string]string // by code
	// refresh tokens: live ones, and the family, revoked when one is
	// used twice.
	live, used   map[string]bool
	revoked      bool
	refreshes    int
	issued       []string // every token and code handed out
	authRequests int
	// registrations are the bodies of the registration requests.
	registrations []map[string]any

	// knobs
	noS256          bool
	authEndpoint    string // overrides the authorization endpoint
	prmResource     string // overrides the PRM resource
	redirectError   string
	registerRedirec string // overrides the registered redirect URI
	slackErrors     bool   // refresh errors as HTTP 200
	iss             string // sent back as iss
	metaIssuer      string // overrides the issuer in the metadata
	prmAS           string // overrides the PRM's authorization server
	// dpop makes the authorization server offer DPoP (RFC 9449), as
	// oidc-provider, Keycloak and Okta do: a token request with a proof
	// gets a token bound to its key, after being asked for a nonce; one
	// without gets a Bearer token. dpopProofs counts the token requests
	// that carried a valid proof, and jkt is the thumbprint of the key the
	// last token is bound to. prmDPoP makes the protected resource
	// metadata say the server takes DPoP-bound tokens (RFC 9728).
	dpop       bool
	prmDPoP    bool
	dpopProofs int
	proofSeen  bool // some token request carried a DPoP header
	jkt        string
	// tokenTypes are the token types of the access tokens issued.
	tokenTypes map[string]string
	// assertions are those of the JWT bearer grants, in order.
	assertions []string
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{t: t, expiresIn: 3600, challenges: map[string]string{}, resources: map[string]string{},
		live: map[string]bool{}, used: map[string]bool{}, tokenTypes: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", a.prm)
	mux.HandleFunc("/.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("/register", a.register)
	mux.HandleFunc("/authorize", a.authorize)
	mux.HandleFunc("/token", a.token)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.srv.URL+`/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *testAS) server() *config.Server {
	return &config.Server{Name: "remote", Transport: config.HTTP, URL: a.srv.URL + "/mcp"}
}

func (a *testAS) prm(w http.ResponseWriter, r *http.Request) {
	res := a.srv.URL + "/mcp"
	if a.prmResource != "" {
		res = a.prmResource
	}
	a.mu.Lock()
	issuer := a.srv.URL
	if a.prmAS != "" {
		issuer = a.prmAS
	}
	prm := map[string]any{"resource": res, "authorization_servers": []string{issuer}, "scopes_supported": []string{"mcp:read"}}
	if a.prmDPoP {
		prm["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	a.mu.Unlock()
	writeJSON(w, 200, prm)
}

func (a *testAS) metadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"issuer":                                a.srv.URL,
		"authorization_endpoint":                a.srv.URL + "/authorize",
		"token_endpoint":                        a.srv.URL + "/token",
		"registration_endpoint":                 a.srv.URL + "/register",
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"mcp:read", "offline_access"},
	}
	if a.noS256 {
		md["code_challenge_methods_supported"] = []string{"plain"}
	}
	if a.authEndpoint != "" {
		md["authorization_endpoint"] = a.authEndpoint
	}
	if a.metaIssuer != "" {
		md["issuer"] = a.metaIssuer
	}
	if a.dpop {
		md["dpop_signing_alg_values_supported"] = []string{"ES256", "RS256"}
	}
	writeJSON(w, 200, md)
}

func (a *testAS) register(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var all map[string]any
	_ = json.Unmarshal(body, &all)
	a.mu.Lock()
	a.registrations = append(a.registrations, all)
	a.mu.Unlock()
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	_ = json.Unmarshal(body, &req)
	if a.registerRedirec != "" {
		req.RedirectURIs = []string{a.registerRedirec}
	}
	writeJSON(w, 201, map[string]any{"client_id": "client-1", "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (a *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authRequests++
	code := fmt.Sprintf("code-%d-%d", a.authRequests, time.Now().UnixNano())
	a.challenges[code] = q.Get("code_challenge")
	a.resources[code] = q.Get("resource")
	a.issued = append(a.issued, code)
	a.mu.Unlock()
	if q.Get("code_challenge_method") != "S256" {
		http.Error(w, "S256 required", 400)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	state := q.Get("state")
	v.Set("state", state)
	if a.redirectError != "" {
		v.Set("error", a.redirectError)
	} else {
		v.Set("code", code)
	}
	if a.iss != "" {
		v.Set("iss", a.iss)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *testAS) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.proofSeen = a.proofSeen || r.Header.Get("DPoP") != ""
	tokenType := "Bearer"
	if a.dpop && r.Header.Get("DPoP") != "" {
		c, jkt, err := verifyProof(r.Header.Get("DPoP"), http.MethodPost, a.srv.URL+"/token", "")
		if err != nil {
			writeJSON(w, 400, map[string]any{"error": "invalid_dpop_proof", "error_description": err.Error()})
			return
		}
		if c.Nonce != "as-nonce" {
			w.Header().Set("DPoP-Nonce", "as-nonce")
			writeJSON(w, 400, map[string]any{"error": "use_dpop_nonce"})
			return
		}
		a.dpopProofs++
		a.jkt, tokenType = jkt, "DPoP"
	}
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		code := r.Form.Get("code")
		want, ok := a.challenges[code]
		delete(a.challenges, code)
		if !ok || oauth2.S256ChallengeFromVerifier(r.Form.Get("code_verifier")) != want {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "bad code or verifier"})
			return
		}
		if r.Form.Get("resource") != a.resources[code] || r.Form.Get("resource") == "" {
			writeJSON(w, 400, map[string]any{"error": "invalid_target"})
			return
		}
	case "refresh_token":
		rt := r.Form.Get("refresh_token")
		a.refreshes++
		if a.used[rt] {
			a.revoked = true // reuse: the whole family goes
		}
		if a.revoked || !a.live[rt] {
			status := 400
			code := "invalid_grant"
			if a.slackErrors {
				status, code = 200, "invalid_refresh_token"
			}
			writeJSON(w, status, map[string]any{"ok": false, "error": code})
			return
		}
		if r.Form.Get("resource") == "" {
			writeJSON(w, 400, map[string]any{"error": "invalid_target"})
			return
		}
		a.used[rt] = true
		delete(a.live, rt)
	case grantJWTBearer:
		a.assertions = append(a.assertions, r.Form.Get("assertion"))
		if r.Form.Get("assertion") != "workload-jwt" || r.Form.Get("client_id") != "workload" || r.Form.Get("resource") == "" {
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "bad assertion"})
			return
		}
	default:
		writeJSON(w, 400, map[string]any{"error": "unsupported_grant_type"})
		return
	}
	n := len(a.issued)
	at, rt := fmt.Sprintf("access-%d-%d", n, time.Now().UnixNano()), fmt.Sprintf("refresh-%d-%d", n, time.Now().UnixNano())
	a.live[rt] = true
	a.issued = append(a.issued, at, rt)
	a.tokenTypes[at] = tokenType
	writeJSON(w, 200, map[string]any{"access_token": at, "token_type": tokenType, "refresh_token": rt, "expires_in": a.expiresIn, "scope": "mcp:read offline_access"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// httpBrowser is the browser of tests: an HTTP client that follows the
// authorization server's redirect to the loopback listener.
func httpBrowser(t *testing.T) Browser {
	return func(ctx context.Context, u string) error {
		if err := checkOpenable(u); err != nil {
			return err
		}
		go func() {
			resp, err := http.Get(u)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}
}

func newTestManager(t *testing.T, store secret.Store, lockDir string, log *bytes.Buffer) *Manager {
	var logger *slog.Logger
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return New(Options{Store: store, Logger: logger, Browser: httpBrowser(t), LockDir: lockDir, SignInTimeout: 20 * time.Second})
}

// clockAhead sets m's clock d ahead of the authorization server's: a token
// issued for less than d is stale from the start, and is refreshed on use.
func clockAhead(m *Manager, d time.Duration) *Manager {
	m.opts.Now = func() time.Time { return time.Now().Add(d) }
	return m
}

func TestSignInThenToken(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	store := newMemStore()
	var log bytes.Buffer
	m := newTestManager(t, store, t.TempDir(), &log)
	s := as.server()
	ctx := context.Background()

	tok, err := m.TokenSource(s).Token(ctx)
	if err != nil || tok != "" {
		t.Fatalf("before sign-in: Token = %q, %v; want no token, no error", tok, err)
	}
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	tok, err = m.TokenSource(s).Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "access-") {
		t.Fatalf("Token = %q, %v; want an access token", tok, err)
	}
	if ok, _ := m.SignedIn(ctx, s); !ok {
		t.Error("SignedIn = false after sign-in")
	}
	// A server whose metadata offers no DPoP sees none of it.
	if _, err := store.Get(ctx, dpopKeyKey(s)); !errors.Is(err, secret.ErrNotFound) || as.proofSeen {
		t.Errorf("without DPoP in the metadata: key stored (%v), proof sent %v; want neither", err, as.proofSeen)
	}
	as.mu.Lock()
	issued := append([]string(nil), as.issued...)
	as.mu.Unlock()
	for _, secretText := range issued {
		if strings.Contains(log.String(), secretText) {
			t.Errorf("the log holds a token or code: %s", log.String())
		}
	}
	if err := m.SignOut(ctx, s); err != nil {
		t.Fatal(err)
	}
	if tok, _ := m.TokenSource(s).Token(ctx); tok != "" {
		t.Errorf("after sign-out Token = %q", tok)
	}
}

func TestRefreshRotatesAndSaves(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.expiresIn = 1 // and the clock a second ahead: every Token refreshes
	store := newMemStore()
	m := clockAhead(newTestManager(t, store, t.TempDir(), nil), time.Second)
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := m.loadTokens(ctx, s)
	if _, err := m.TokenSource(s).Token(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := m.loadTokens(ctx, s)
	if after.RefreshToken == before.RefreshToken || after.AccessToken == before.AccessToken {
		t.Fatal("the refreshed, rotated tokens were not saved")
	}
}

// TestRefreshRace: several token sources with their own caches (as in
// separate processes) share one store and one lock folder; the server
// revokes the family if a refresh token is used twice. The family must
// survive.
func TestRefreshRace(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.expiresIn = 1
	store := newMemStore()
	lockDir := t.TempDir()
	s := as.server()
	ctx := context.Background()
	if err := newTestManager(t, store, lockDir, nil).SignIn(ctx, s, nil); err != nil {
		t.Fatal(err)
	}
	as.mu.Lock()
	as.expiresIn = 3600 // the first refresh gives a token the others can use
	as.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		m := clockAhead(newTestManager(t, store, lockDir, nil), time.Second)
		wg.Go(func() {
			if _, err := m.TokenSource(s).Token(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.revoked || as.refreshes != 1 {
		t.Errorf("revoked = %v, refreshes = %d; want one refresh and the family alive", as.revoked, as.refreshes)
	}
}

func TestInvalidGrantSignsOut(t *testing.T) {
	t.Parallel()
	for _, slack := range []bool{false, true} {
		t.Run(fmt.Sprintf("slack=%v", slack), func(t *testing.T) {
			t.Parallel()
			as := newTestAS(t)
			as.expiresIn = 1
			as.slackErrors = slack
			store := newMemStore()
			m := clockAhead(newTestManager(t, store, t.TempDir(), nil), time.Second)
			s := as.server()
			ctx := context.Background()
			if err := m.SignIn(ctx, s, nil); err != nil {
				t.Fatal(err)
			}
			as.mu.Lock()
			as.revoked = true
			as.mu.Unlock()
			_, err := m.TokenSource(s).Token(ctx)
			if !transport.IsAuthError(err) {
				t.Fatalf("Token error = %v; want an auth error", err)
			}
			if ok, _ := m.SignedIn(ctx, s); ok {
				t.Error("the dead sign-in was not deleted")
			}
		})
	}
}

func TestSignInRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(a *testAS)
		want string
	}{
		{"error redirect", func(a *testAS) { a.redirectError = "access_denied" }, "declined"},
		{"resource of another server", func(a *testAS) { a.prmResource = "https://evil.example.com/mcp" }, "names another server"},
		{"http authorization endpoint elsewhere", func(a *testAS) { a.authEndpoint = "http://example.com/authorize" }, "not encrypted"},
		{"javascript: authorization endpoint", func(a *testAS) { a.authEndpoint = "javascript:alert(1)" }, "not a web address"},
		{"file: authorization endpoint", func(a *testAS) { a.authEndpoint = "file:///etc/passwd" }, "not a web address"},
		{"no S256", func(a *testAS) { a.noS256 = true }, "S256"},
		{"non-loopback redirect", func(a *testAS) { a.registerRedirec = "https://evil.example.com/cb" }, "not to this computer"},
		{"iss mismatch", func(a *testAS) { a.iss = "https://other.example.com" }, "iss mismatch"},
		{"metadata of another issuer", func(a *testAS) { a.metaIssuer = "https://other.example.com" }, "another issuer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			as := newTestAS(t)
			tt.set(as)
			m := newTestManager(t, newMemStore(), t.TempDir(), nil)
			err := m.SignIn(context.Background(), as.server(), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("SignIn error = %v; want one saying %q", err, tt.want)
			}
			if ok, _ := m.SignedIn(context.Background(), as.server()); ok {
				t.Error("tokens were stored after a refused sign-in")
			}
		})
	}
}

func TestSignInCancel(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	opened := make(chan struct{})
	m := New(Options{Store: newMemStore(), Browser: func(context.Context, string) error { close(opened); return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-opened; cancel() }()
	err := m.SignIn(ctx, as.server(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SignIn = %v; want cancelled", err)
	}
}

func TestCheckOpenable(t *testing.T) {
	t.Parallel()
	for u, ok := range map[string]bool{
		"https://example.com/authorize?x=1": true,
		"http://127.0.0.1:8080/authorize":   true,
		"javascript:alert(1)":               false,
		"file:///etc/passwd":                false,
		"ms-settings:":                      false,
		"https:///nohost":                   false,
		"https://example.com/a b":           false,
	} {
		err := checkOpenable(u)
		if (err == nil) != ok {
			t.Errorf("checkOpenable(%q) = %v", u, err)
		}
		// The front end names the product; a core error that does too
		// makes it stutter ("mcptray: mcptray refuses ...").
		if err != nil && strings.HasPrefix(err.Error(), "mcptray") {
			t.Errorf("checkOpenable(%q) = %q; it must not start with the product name", u, err)
		}
	}
}

func TestErrorBodyTripper(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"ok": false, "error": "token_expired"})
	}))
	defer srv.Close()
	c := &http.Client{Transport: errorBodyTripper{next: http.DefaultTransport}}
	resp, err := c.Post(srv.URL, "application/x-www-form-urlencoded", strings.NewReader("grant_type=refresh_token"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 400 || body["error"] != "invalid_grant" {
		t.Errorf("got %d %v; want 400 invalid_grant", resp.StatusCode, body)
	}
}

func TestDiscoveryOrder(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("https://mcp.example.com/tenant/mcp")
	got := prmCandidates(u, &transport.AuthError{ResourceMetadata: "https://mcp.example.com/custom.json"})
	want := []string{"https://mcp.example.com/custom.json",
		"https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp",
		"https://mcp.example.com/.well-known/oauth-protected-resource"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("prmCandidates = %v", got)
	}
	iu, _ := url.Parse("https://auth.example.com/tenant1")
	got = asCandidates(iu)
	want = []string{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("asCandidates = %v", got)
	}
}

// countingStore counts reads, which on a real keychain are D-Bus calls.
type countingStore struct {
	*memStore
	mu   sync.Mutex
	gets int
}

func (s *countingStore) Get(ctx context.Context, k secret.Key) ([]byte, error) {
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	return s.memStore.Get(ctx, k)
}

func (s *countingStore) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// TestNotSignedInIsCached: a remote server without sign-in does not cost a
// keychain read on every request, yet a sign-in made elsewhere shows soon.
func TestNotSignedInIsCached(t *testing.T) {
	t.Parallel()
	store := &countingStore{memStore: newMemStore()}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	m := New(Options{Store: store, Now: func() time.Time { return now }})
	s := &config.Server{Name: "plain", Transport: config.HTTP, URL: "https://mcp.example/mcp"}
	ts := m.TokenSource(s)
	ctx := context.Background()
	for range 10 {
		if tok, err := ts.Token(ctx); err != nil || tok != "" {
			t.Fatalf("Token = %q, %v; want none", tok, err)
		}
	}
	first := store.reads()
	if first == 0 || first > 2 {
		t.Fatalf("ten requests read the keychain %d times; want one look (tokens, client)", first)
	}

	// Another process signs in; after noneTTL this one sees it.
	b, _ := json.Marshal(storedTokens{AccessToken: "at-elsewhere", Expiry: now.Add(time.Hour)})
	store.memStore.Set(ctx, tokensKey(s), b)
	now = now.Add(noneTTL)
	if tok, err := ts.Token(ctx); err != nil || tok != "at-elsewhere" {
		t.Errorf("after noneTTL: Token = %q, %v; want the token signed in elsewhere", tok, err)
	}
}
