package oauth

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// bearerResource is a protected resource that knows only Bearer tokens,
// and answers as the TypeScript SDK's requireBearerAuth does: any other
// Authorization scheme is refused with a Bearer invalid_token challenge.
// It takes the access tokens as issued.
type bearerResource struct {
	as  *testAS
	srv *httptest.Server

	mu      sync.Mutex
	served  int
	refused []string // the schemes it refused
}

func newBearerResource(t *testing.T, as *testAS) *bearerResource {
	rs := &bearerResource{as: as}
	rs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(desc string) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+desc+`", resource_metadata="`+as.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token", "error_description": desc})
		}
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if !strings.EqualFold(scheme, "bearer") || token == "" {
			rs.refused = append(rs.refused, scheme)
			refuse("Invalid Authorization header format, expected 'Bearer TOKEN'")
			return
		}
		as.mu.Lock()
		_, issued := as.tokenTypes[token]
		as.mu.Unlock()
		if !issued {
			refuse("Invalid token")
			return
		}
		rs.served++
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *bearerResource) counts() (served int, refused []string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.served, append([]string(nil), rs.refused...)
}

// post sends one request to url with the server's token, as the
// connection does.
func post(m *Manager, s *config.Server, url string) error {
	hc := transport.NewHTTPClient(transport.HTTPOptions{Tokens: m.TokenSource(s)})
	resp, err := hc.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

func (a *testAS) proofs() (valid int, seen bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dpopProofs, a.proofSeen
}

// TestDPoPOfferedResourceBearerOnly is the setup: an authorization
// server that offers DPoP in front of a server that knows only Bearer
// tokens and says nothing of DPoP. mcptray signs in and refreshes with
// Bearer tokens, as without DPoP.
func TestDPoPOfferedResourceBearerOnly(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop = true
	rs := newBearerResource(t, as)
	store := newMemStore()
	m := newTestManager(t, store, t.TempDir(), nil)
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	for range 2 {
		if err := post(m, s, rs.srv.URL+"/mcp"); err != nil {
			t.Fatalf("a request to the Bearer-only server: %v", err)
		}
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow: %v", err)
	}
	if err := post(m, s, rs.srv.URL+"/mcp"); err != nil {
		t.Fatalf("a request after the refresh: %v", err)
	}
	if _, seen := as.proofs(); seen {
		t.Error("a token request carried a DPoP proof; the server takes only Bearer tokens")
	}
	if served, refused := rs.counts(); served != 3 || len(refused) != 0 {
		t.Errorf("served %d, refused %q; want 3 served, none refused", served, refused)
	}
	if _, err := store.Get(ctx, dpopKeyKey(s)); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("a DPoP key was made (%v); want none", err)
	}
}

// TestDPoPByChallenge: a server whose metadata says nothing of DPoP but
// whose 401 is a DPoP challenge takes DPoP-bound tokens, and gets them.
func TestDPoPByChallenge(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop = true
	rs := newDPoPResource(t, as)
	m := newTestManager(t, newMemStore(), t.TempDir(), nil)
	s := as.server()
	ctx := context.Background()
	err := post(m, s, rs.srv.URL+"/mcp") // no token yet: the challenge
	var ch *transport.AuthError
	if !errors.As(err, &ch) || !ch.Offers("DPoP") {
		t.Fatalf("first request: %v; want a DPoP challenge", err)
	}
	if err := m.SignIn(ctx, s, ch); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Fatalf("token requests with a valid proof: %d, want 1", valid)
	}
	if err := post(m, s, rs.srv.URL+"/mcp"); err != nil {
		t.Fatalf("a request with the DPoP-bound token: %v", err)
	}
}

// TestDPoPRequiredOverridesRefusal: a server whose metadata says it takes
// only DPoP-bound tokens gets them, even after a refusal was remembered.
func TestDPoPRequiredOverridesRefusal(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop = true
	store := newMemStore()
	m := newTestManager(t, store, t.TempDir(), nil)
	s := as.server()
	ctx := context.Background()
	if err := m.saveClient(ctx, s, &storedClient{DPoPRefused: true}); err != nil {
		t.Fatal(err)
	}
	d := &discovery{prm: &resourceMetadata{DPoPBoundAccessTokensRequired: true},
		meta: serverMetadata{DPoPSigningAlgValuesSupported: []string{"ES256"}}}
	c := &storedClient{}
	m.chooseDPoP(ctx, s, d, nil, c)
	if !c.DPoP || c.DPoPRefused {
		t.Errorf("DPoP %v, refused %v; want DPoP, the refusal dropped", c.DPoP, c.DPoPRefused)
	}
	// Without the requirement the refusal holds.
	d.prm = &resourceMetadata{DPoPSigningAlgValuesSupported: []string{"ES256"}}
	c = &storedClient{}
	m.chooseDPoP(ctx, s, d, nil, c)
	if c.DPoP || !c.DPoPRefused {
		t.Errorf("DPoP %v, refused %v; want no DPoP, the refusal kept", c.DPoP, c.DPoPRefused)
	}
}

// TestResourceDPoP checks what the resource's metadata and challenge say.
func TestResourceDPoP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		prm             *resourceMetadata
		ch              *transport.AuthError
		takes, requires bool
	}{
		{"nothing", nil, nil, false, false},
		{"metadata without DPoP", &resourceMetadata{}, &transport.AuthError{Schemes: []string{"Bearer"}}, false, false},
		{"metadata with ES256", &resourceMetadata{DPoPSigningAlgValuesSupported: []string{"RS256", "ES256"}}, nil, true, false},
		{"metadata with other algorithms", &resourceMetadata{DPoPSigningAlgValuesSupported: []string{"RS256"}}, nil, false, false},
		{"metadata requires", &resourceMetadata{DPoPBoundAccessTokensRequired: true}, nil, true, true},
		{"DPoP challenge only", nil, &transport.AuthError{Schemes: []string{"DPoP"}}, true, true},
		{"DPoP and Bearer challenges", nil, &transport.AuthError{Schemes: []string{"Bearer", "DPoP"}, DPoPAlgs: []string{"ES256"}}, true, false},
		{"DPoP challenge with other algorithms", nil, &transport.AuthError{Schemes: []string{"DPoP"}, DPoPAlgs: []string{"PS256"}}, false, false},
	}
	for _, tt := range tests {
		takes, requires := resourceDPoP(&discovery{prm: tt.prm}, tt.ch)
		if takes != tt.takes || requires != tt.requires {
			t.Errorf("%s: takes %v, requires %v; want %v, %v", tt.name, takes, requires, tt.takes, tt.requires)
		}
	}
}

// TestDPoPRefusedFallsBack: a server whose metadata says it takes DPoP but
// that refuses a DPoP-bound token as the TypeScript SDK does. mcptray
// notices at the first refusal, says so in the log, drops the bound
// sign-in and remembers the server; the next sign-in is with Bearer
// tokens and works, and so does every later one, in this process or
// another. The person is asked to sign in once, not in a loop.
func TestDPoPRefusedFallsBack(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop, as.prmDPoP = true, true
	rs := newBearerResource(t, as)
	store := newMemStore()
	var log bytes.Buffer
	m := newTestManager(t, store, t.TempDir(), &log)
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Fatalf("token requests with a valid proof: %d, want 1 (the metadata says DPoP)", valid)
	}

	err := post(m, s, rs.srv.URL+"/mcp")
	var ch *transport.AuthError
	if !errors.As(err, &ch) || !ch.DPoPRefused {
		t.Fatalf("the request with the bound token: %v; want an AuthError that says DPoP was refused", err)
	}
	if !strings.Contains(ch.Error(), "without one") {
		t.Errorf("the error says %q; want it to say the next sign-in is without DPoP", ch.Error())
	}
	if !strings.Contains(log.String(), "without DPoP from now on") {
		t.Errorf("the log does not say the server is signed in to without DPoP:\n%s", log.String())
	}
	if ok, _ := m.SignedIn(ctx, s); ok {
		t.Error("the refused sign-in is still stored")
	}
	if _, err := store.Get(ctx, dpopKeyKey(s)); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("the DPoP key is still stored (%v)", err)
	}
	// What the service does next: a refresh first, which cannot give a
	// bound token again...
	if err := m.RefreshNow(ctx, s); err == nil {
		t.Fatal("RefreshNow succeeded after the refusal; it would only get another refused token")
	}
	// ...then a sign-in, without DPoP.
	if err := m.SignIn(ctx, s, ch); err != nil {
		t.Fatalf("signing in again: %v", err)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Errorf("token requests with a valid proof: %d, want still 1", valid)
	}
	if err := post(m, s, rs.srv.URL+"/mcp"); err != nil {
		t.Fatalf("a request after signing in again: %v", err)
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow: %v", err)
	}
	// Remembered: another process, signing in afresh, uses no DPoP either.
	other := newTestManager(t, store, t.TempDir(), nil)
	if err := other.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("signing in from another process: %v", err)
	}
	if err := post(other, s, rs.srv.URL+"/mcp"); err != nil {
		t.Fatalf("a request from another process: %v", err)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Errorf("token requests with a valid proof: %d, want still 1", valid)
	}
	if served, refused := rs.counts(); served != 2 || len(refused) != 1 {
		t.Errorf("served %d, refused %q; want 2 served, 1 refused", served, refused)
	}
	if strings.Contains(log.String(), "access-") || strings.Contains(log.String(), "refresh-") {
		t.Errorf("the log holds a token:\n%s", log.String())
	}
}

// TestDPoPRefusedMachineIdentity: a workload signed in with the JWT bearer
// grant gets a Bearer token at once when the server refuses its bound one;
// the request goes through with no sign-in.
func TestDPoPRefusedMachineIdentity(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	as.dpop, as.prmDPoP = true, true
	rs := newBearerResource(t, as)
	store := newMemStore()
	var log bytes.Buffer
	m := New(Options{Store: store, Logger: slog.New(slog.NewTextHandler(&log, nil)), LockDir: t.TempDir(),
		Settings: func(*config.Server) Settings {
			return Settings{Grant: JWTBearer, ClientID: "workload", Assertion: "workload-jwt"}
		}})
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Fatalf("token requests with a valid proof: %d, want 1", valid)
	}
	if err := post(m, s, rs.srv.URL+"/mcp"); err != nil {
		t.Fatalf("the request: %v; want it sent again with a Bearer token", err)
	}
	if served, refused := rs.counts(); served != 1 || len(refused) != 1 {
		t.Errorf("served %d, refused %q; want 1 served after 1 refused", served, refused)
	}
	if valid, _ := as.proofs(); valid != 1 {
		t.Errorf("token requests with a valid proof: %d, want still 1", valid)
	}
	if !strings.Contains(log.String(), "without DPoP from now on") {
		t.Errorf("the log does not say so:\n%s", log.String())
	}
}
