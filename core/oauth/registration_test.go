package oauth

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// A loopback-redirect client registers as a native application (SEP-837).
func TestRegistersAsNative(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	m := newTestManager(t, newMemStore(), t.TempDir(), nil)
	if err := m.SignIn(context.Background(), as.server(), nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.registrations) != 1 {
		t.Fatalf("%d registrations, want 1", len(as.registrations))
	}
	if got := as.registrations[0]["application_type"]; got != "native" {
		t.Errorf("application_type = %v, want native", got)
	}
}

// When the protected resource names a new authorization server, the sign-in
// is not refreshed at the old one, and the next sign-in registers with the
// new one rather than reusing the old client (SEP-2352).
func TestAuthServerMigration(t *testing.T) {
	t.Parallel()
	old, moved := newTestAS(t), newTestAS(t)
	m := newTestManager(t, newMemStore(), t.TempDir(), nil)
	s := old.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	if err := m.RefreshNow(ctx, s); err != nil {
		t.Fatalf("RefreshNow before the move: %v", err)
	}
	old.mu.Lock()
	old.prmAS = moved.srv.URL
	refreshes := old.refreshes
	old.mu.Unlock()

	if err := m.RefreshNow(ctx, s); !errors.Is(err, ErrAuthServerMoved) {
		t.Fatalf("RefreshNow after the move = %v, want ErrAuthServerMoved", err)
	}
	old.mu.Lock()
	if old.refreshes != refreshes {
		t.Errorf("refreshed at the old authorization server after the move")
	}
	old.mu.Unlock()

	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn after the move: %v", err)
	}
	moved.mu.Lock()
	registered, issued := len(moved.registrations), slices.Clone(moved.issued)
	moved.mu.Unlock()
	if registered != 1 {
		t.Errorf("%d registrations at the new authorization server, want 1", registered)
	}
	tok, err := m.TokenSource(s).Token(ctx)
	if err != nil || !slices.Contains(issued, tok) {
		t.Errorf("Token = %q, %v; want one the new authorization server issued", tok, err)
	}
}
