package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/test/authserver"
)

// signedInAt signs a new Manager in to srv's MCP server and returns it with
// its store and the server's config.
func signedInAt(t *testing.T, srv *authserver.Servers) (*Manager, *memStore, *config.Server) {
	t.Helper()
	store := newMemStore()
	m := newTestManager(t, store, t.TempDir(), nil)
	s := &config.Server{Name: "revocable", Transport: config.HTTP, URL: srv.MCPURL}
	if err := m.SignIn(context.Background(), s, nil); err != nil {
		t.Fatal(err)
	}
	return m, store, s
}

// TestSignOutRevokes: signing out of a server whose authorization server
// offers revocation revokes the refresh and the access token there, so the
// access token no longer opens the server, and forgets them here.
func TestSignOutRevokes(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	m, store, s := signedInAt(t, srv)
	ctx := context.Background()
	tok, err := m.TokenSource(s).Token(ctx)
	if err != nil || tok == "" {
		t.Fatalf("Token = %q, %v", tok, err)
	}

	if err := m.SignOut(ctx, s); err != nil {
		t.Fatalf("SignOut: %v", err)
	}
	if n := srv.Stats().Revocations; n != 2 {
		t.Errorf("%d tokens revoked; want the refresh and the access token", n)
	}
	if status := mcpStatus(t, srv.MCPURL, tok); status != http.StatusUnauthorized {
		t.Errorf("the signed-out access token got HTTP %d; want 401", status)
	}
	if dump := store.dump(); dump != "" {
		t.Errorf("the keychain still holds %q", dump)
	}
}

// TestSignOutWhenRevocationFails: a revocation endpoint that fails does
// not keep the sign-in in the keychain; sign-out forgets it anyway and
// says the server did not confirm.
func TestSignOutWhenRevocationFails(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	m, store, s := signedInAt(t, srv)
	srv.SetRevokeStatus(http.StatusServiceUnavailable)
	ctx := context.Background()

	err := m.SignOut(ctx, s)
	if !errors.Is(err, ErrNotRevoked) || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("SignOut = %v; want one saying the revocation failed", err)
	}
	if dump := store.dump(); dump != "" {
		t.Errorf("the keychain still holds %q", dump)
	}
	if ok, _ := m.SignedIn(ctx, s); ok {
		t.Error("SignedIn = true after sign-out")
	}
	for _, secret := range srv.Secrets() {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows a secret: %v", err)
		}
	}
}

// mcpStatus sends an MCP initialize with token to url and returns the HTTP
// status.
func mcpStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
