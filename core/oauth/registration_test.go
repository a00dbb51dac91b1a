package oauth

import (
	"context"
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
