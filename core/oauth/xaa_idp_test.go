package oauth

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/test/authserver"
)

// TestXAAFromIdentityProvider: with an identity provider set up, the
// person signs in there once in the browser; a server with the Cross-App
// Access grant then signs in with no browser, by exchanging the identity
// provider's ID token (RFC 8693) and presenting the ID-JAG (RFC 7523); an
// expired ID token is refreshed at the identity provider, still with no
// browser. test/authserver plays both the identity provider and the MCP
// server's authorization server.
func TestXAAFromIdentityProvider(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	srv.AddClient("mcptray-at-idp", "idp-secret")
	srv.AddClient("mcptray-at-mcp", "mcp-secret")

	var opened atomic.Int32
	follow := httpBrowser(t)
	browser := func(ctx context.Context, u string) error {
		opened.Add(1)
		return follow(ctx, u)
	}
	store := newMemStore()
	var log bytes.Buffer
	m := New(Options{
		Store: store, Browser: browser, LockDir: t.TempDir(), SignInTimeout: 20 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		IdP:    &IdentityProvider{Issuer: srv.Issuer, ClientID: "mcptray-at-idp", ClientSecret: "idp-secret"},
		Settings: func(*config.Server) Settings {
			return Settings{Grant: CrossAppAccess, ClientID: "mcptray-at-mcp", ClientSecret: "mcp-secret"}
		},
	})
	ctx := context.Background()
	if err := m.SignInIdP(ctx); err != nil {
		t.Fatalf("SignInIdP: %v", err)
	}
	if n := len(storedOfKind(store, IdPTokens)); n != 1 {
		t.Fatalf("%d identity provider sign-ins in the keychain; want one", n)
	}

	s := &config.Server{Name: "xaa", Transport: config.HTTP, URL: srv.MCPURL}
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	tok, err := m.TokenSource(s).Token(ctx)
	if err != nil || tok == "" {
		t.Fatalf("Token = %q, %v", tok, err)
	}
	if status := mcpStatus(t, srv.MCPURL, tok); status != http.StatusOK {
		t.Fatalf("the server answered the Cross-App Access token with HTTP %d", status)
	}
	st := srv.Stats()
	if opened.Load() != 1 || st.Authorizations != 1 || st.TokenExchanges != 1 || st.JWTBearerGrants != 1 {
		t.Fatalf("browser opened %d times; servers saw %+v; want one browser sign-in (the identity provider's), one exchange, one JWT bearer grant", opened.Load(), st)
	}

	// Two hours on, the ID token and the server's token have expired:
	// the next request refreshes the one and exchanges it again.
	clockAhead(m, 2*time.Hour)
	tok2, err := m.TokenSource(s).Token(ctx)
	if err != nil || tok2 == "" || tok2 == tok {
		t.Fatalf("Token after expiry = %q, %v; want a new token", tok2, err)
	}
	if status := mcpStatus(t, srv.MCPURL, tok2); status != http.StatusOK {
		t.Fatalf("the server answered the renewed token with HTTP %d", status)
	}
	st = srv.Stats()
	if opened.Load() != 1 || st.Refreshes != 1 || st.TokenExchanges != 2 || st.JWTBearerGrants != 2 {
		t.Errorf("browser opened %d times; servers saw %+v; want the ID token refreshed once and exchanged again, no browser", opened.Load(), st)
	}

	for _, secret := range srv.Secrets() {
		if strings.Contains(log.String(), secret) {
			t.Fatalf("the log holds a token or secret: %s", log.String())
		}
	}
	if err := m.SignOutIdP(ctx); err != nil {
		t.Fatalf("SignOutIdP: %v", err)
	}
	if n := len(storedOfKind(store, IdPTokens)); n != 0 {
		t.Errorf("%d identity provider sign-ins left after SignOutIdP", n)
	}
}

// storedOfKind returns the store's keys of one kind.
func storedOfKind(s *memStore, kind secret.Kind) []secret.Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []secret.Key
	for k := range s.m {
		if k.Kind == kind {
			out = append(out, k)
		}
	}
	return out
}
