package oauth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/transport"
)

// These tests sign in with a real authorization server, oidc-provider 9 in
// its default configuration (DPoP on, as Keycloak and Okta have it too), in
// front of an MCP server built on the official TypeScript SDK
// (test/peers/oidc.mjs, which make deps installs with its packages).

// oidcPeer is a running test/peers/oidc.mjs.
type oidcPeer struct {
	Issuer, MCP string
	port        int // the loopback callback port its client is registered with
	signIns     int // times the browser went through the login and consent pages
	mu          sync.Mutex
}

// startOIDC starts test/peers/oidc.mjs with resource (bearer, dpop or liar)
// as the MCP server's side. Without test/peers the test is skipped, or
// fails under CI, where make deps must have run.
func startOIDC(t *testing.T, resource string) *oidcPeer {
	t.Helper()
	peers, err := filepath.Abs(filepath.Join("..", "..", "test", "peers"))
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(peers, "node_modules", ".bin", "node")
	for _, need := range []string{node, filepath.Join(peers, "node_modules", "oidc-provider", "package.json")} {
		if _, err := os.Stat(need); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("test/peers is not installed with oidc-provider (make deps installs it): %v", err)
			}
			t.Fatalf("run make deps: %v", err)
		}
	}
	// The client is registered with one redirect URI, as a native app's
	// usually is: a port picked now, given to mcptray as callbackPort.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &oidcPeer{port: l.Addr().(*net.TCPAddr).Port}
	l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join(peers, "oidc.mjs"))
	cmd.Env = append(os.Environ(), "RESOURCE="+resource,
		fmt.Sprintf("REDIRECT_URI=http://127.0.0.1:%d%s", p.port, callbackPath))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("oidc.mjs said:\n%s", stderr.String())
		}
	})
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case l, ok := <-line:
		if !ok || json.Unmarshal([]byte(l), p) != nil || p.Issuer == "" {
			t.Fatalf("oidc.mjs did not start: %q\n%s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("oidc.mjs did not start within 30 s:\n%s", stderr.String())
	}
	return p
}

func (p *oidcPeer) server() *config.Server {
	return &config.Server{Name: "oidc", Transport: config.HTTP, URL: p.MCP}
}

// manager is a Manager that signs in as oidc.mjs's client, through its
// login and consent pages; another process's when given the same store
// and lock folder.
func (p *oidcPeer) manager(t *testing.T, store secret.Store, lockDir string, log io.Writer) *Manager {
	var logger *slog.Logger
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return New(Options{Store: store, Logger: logger, LockDir: lockDir, SignInTimeout: 30 * time.Second,
		Browser:  p.browse,
		Settings: func(*config.Server) Settings { return Settings{ClientID: "mcptray", CallbackPort: p.port} },
	})
}

// formAction finds a page's form's action.
var formAction = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)

// browse is the person in the browser: it follows the authorization
// request to oidc-provider's login page, signs in as anyone, consents, and
// follows the redirect to mcptray's loopback listener.
func (p *oidcPeer) browse(ctx context.Context, authURL string) error {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := hc.Get(authURL)
	for _, form := range []url.Values{
		{"prompt": {"login"}, "login": {"alice"}, "password": {"any"}},
		{"prompt": {"consent"}},
	} {
		if err != nil {
			return err
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := formAction.FindSubmatch(page)
		if m == nil {
			return fmt.Errorf("no form on %s (HTTP %d): %.300s", resp.Request.URL, resp.StatusCode, page)
		}
		action, perr := resp.Request.URL.Parse(html.UnescapeString(string(m[1])))
		if perr != nil {
			return perr
		}
		resp, err = hc.PostForm(action.String(), form) // the outer err: the next round, or after the loop, reads it
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.Request.URL.Port() != fmt.Sprint(p.port) {
		page, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("the consent did not lead back to mcptray but to %s: %.300s", resp.Request.URL, page)
	}
	p.mu.Lock()
	p.signIns++
	p.mu.Unlock()
	return nil
}

// call initializes an MCP session with the server with m's token, as a
// connection does, and fails unless the server answers it.
func (p *oidcPeer) call(m *Manager) error {
	hc := transport.NewHTTPClient(transport.HTTPOptions{Tokens: m.TokenSource(p.server())})
	req, _ := http.NewRequest(http.MethodPost, p.MCP, strings.NewReader(initializeBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"serverInfo"`)) {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, body)
	}
	return nil
}

// oidcStats is what the MCP server saw: requests served, and the
// Authorization schemes of those it refused.
type oidcStats struct {
	Served  int      `json:"served"`
	Refused []string `json:"refused"`
}

func (p *oidcPeer) stats(t *testing.T) oidcStats {
	t.Helper()
	u, _ := url.Parse(p.MCP)
	resp, err := http.Get(u.Scheme + "://" + u.Host + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st oidcStats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// offersDPoP checks that the authorization server does offer DPoP, as the
// tests assume.
func (p *oidcPeer) offersDPoP(t *testing.T) {
	t.Helper()
	var md serverMetadata
	resp, err := http.Get(p.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil || !md.offersDPoP() {
		t.Fatalf("oidc-provider does not offer DPoP with ES256 (%v, %q); these tests mean nothing", err, md.DPoPSigningAlgValuesSupported)
	}
}

// syncBuffer is a log that may be written while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func storedType(t *testing.T, m *Manager, s *config.Server) string {
	t.Helper()
	tok, err := m.loadTokens(context.Background(), s)
	if err != nil || tok == nil {
		t.Fatalf("no stored sign-in: %v", err)
	}
	return tok.TokenType
}

// TestOIDCProviderBearerResource is issue 21's setup: oidc-provider with
// DPoP on in front of the SDK's requireBearerAuth. mcptray signs in with
// Bearer tokens; requests, a refresh and two processes refreshing at once
// all work.
func TestOIDCProviderBearerResource(t *testing.T) {
	t.Parallel()
	p := startOIDC(t, "bearer")
	p.offersDPoP(t)
	store, lockDir := newMemStore(), t.TempDir()
	m := p.manager(t, store, lockDir, nil)
	s := p.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if typ := storedType(t, m, s); !strings.EqualFold(typ, "Bearer") {
		t.Errorf("token type %q, want Bearer", typ)
	}
	if _, err := store.Get(ctx, dpopKeyKey(s)); !errors.Is(err, secret.ErrNotFound) {
		t.Errorf("a DPoP key was made (%v); the server takes only Bearer tokens", err)
	}
	if err := p.call(m); err != nil {
		t.Fatalf("a request after signing in: %v", err)
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow: %v", err)
	}
	if err := p.call(m); err != nil {
		t.Fatalf("a request after the refresh: %v", err)
	}

	// Two processes refresh at once: oidc-provider rotates the refresh
	// token of a public client and revokes the sign-in when one is used
	// twice, so only one may go to it; the other takes its token.
	other := p.manager(t, store, lockDir, nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, mm := range []*Manager{m, other} {
		wg.Go(func() { errs[i] = mm.RefreshNow(ctx, s) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("two processes refreshing at once: %v", err)
	}
	for _, mm := range []*Manager{m, other} {
		mm.Forget(s)
		if err := p.call(mm); err != nil {
			t.Fatalf("a request after both refreshed: %v", err)
		}
	}
	if st := p.stats(t); st.Served != 4 || len(st.Refused) != 0 {
		t.Errorf("the MCP server served %d, refused %q; want 4 served, none refused", st.Served, st.Refused)
	}
}

// TestOIDCProviderDPoPResource is the opposite: a server whose metadata
// says it takes only DPoP-bound tokens, and checks their proofs, gets
// them.
func TestOIDCProviderDPoPResource(t *testing.T) {
	t.Parallel()
	p := startOIDC(t, "dpop")
	store := newMemStore()
	m := p.manager(t, store, t.TempDir(), nil)
	s := p.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if typ := storedType(t, m, s); !isDPoP(typ) {
		t.Errorf("token type %q, want DPoP", typ)
	}
	if err := p.call(m); err != nil {
		t.Fatalf("a request after signing in: %v", err)
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow (a DPoP-bound refresh token, the same key): %v", err)
	}
	if err := p.call(m); err != nil {
		t.Fatalf("a request after the refresh: %v", err)
	}
	if st := p.stats(t); st.Served != 2 || len(st.Refused) != 0 {
		t.Errorf("the MCP server served %d, refused %q; want 2 served, none refused", st.Served, st.Refused)
	}
}

// TestOIDCProviderDPoPRefused: a server whose metadata says it takes
// DPoP-bound tokens, behind the SDK's requireBearerAuth all the same.
// mcptray signs in with DPoP, is refused once, says so, and the next
// sign-in (one, not a loop) is with Bearer tokens, which then work and
// refresh.
func TestOIDCProviderDPoPRefused(t *testing.T) {
	t.Parallel()
	p := startOIDC(t, "liar")
	store := newMemStore()
	var log syncBuffer
	m := p.manager(t, store, t.TempDir(), &log)
	s := p.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if typ := storedType(t, m, s); !isDPoP(typ) {
		t.Fatalf("token type %q, want DPoP (the metadata says the server takes it)", typ)
	}
	err := p.call(m)
	var ch *transport.AuthError
	if !errors.As(err, &ch) || !ch.DPoPRefused {
		t.Fatalf("the request with the DPoP-bound token: %v; want an AuthError that says DPoP was refused", err)
	}
	if !strings.Contains(log.String(), "without DPoP from now on") {
		t.Errorf("the log does not say so:\n%s", log.String())
	}
	// What the service does when the person signs in: a refresh first
	// (which must not give another bound token), then the browser.
	if err := m.RefreshNow(ctx, s); err == nil {
		t.Fatal("RefreshNow succeeded after the refusal")
	}
	if err := m.SignIn(ctx, s, ch); err != nil {
		t.Fatalf("signing in again: %v", err)
	}
	if typ := storedType(t, m, s); !strings.EqualFold(typ, "Bearer") {
		t.Errorf("token type after signing in again %q, want Bearer", typ)
	}
	for range 2 {
		if err := p.call(m); err != nil {
			t.Fatalf("a request after signing in again: %v", err)
		}
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow: %v", err)
	}
	if err := p.call(m); err != nil {
		t.Fatalf("a request after the refresh: %v", err)
	}
	st := p.stats(t)
	if st.Served != 3 || !slices.Equal(st.Refused, []string{"DPoP"}) {
		t.Errorf("the MCP server served %d, refused %q; want 3 served, one DPoP refused", st.Served, st.Refused)
	}
	p.mu.Lock()
	signIns := p.signIns
	p.mu.Unlock()
	if signIns != 2 {
		t.Errorf("the person signed in %d times, want 2", signIns)
	}
}
