package oauth

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

func TestSignInJWTBearer(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	var log bytes.Buffer
	m := newTestManager(t, newMemStore(), t.TempDir(), &log)
	assertion := "workload-jwt"
	m.opts.Settings = func(*config.Server) Settings {
		return Settings{Grant: JWTBearer, ClientID: "workload", Assertion: assertion}
	}
	s := as.server()
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	tok, err := m.TokenSource(s).Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "access-") {
		t.Fatalf("Token = %q, %v; want an access token", tok, err)
	}
	// A new token needs no person: the same JWT is presented again.
	tok2, err := clockAhead(newTestManager(t, m.opts.Store, t.TempDir(), &log), 2*time.Hour).TokenSource(s).Token(ctx)
	if err != nil || tok2 == tok || !strings.HasPrefix(tok2, "access-") {
		t.Fatalf("renewed Token = %q, %v; want a new access token", tok2, err)
	}
	as.mu.Lock()
	got := slices.Clone(as.assertions)
	as.mu.Unlock()
	if !slices.Equal(got, []string{assertion, assertion}) {
		t.Errorf("assertions presented: %q; want the workload's JWT twice", got)
	}
	if strings.Contains(log.String(), assertion) {
		t.Errorf("the log holds the workload's JWT:\n%s", log.String())
	}

	// A JWT the server refuses is said as it is, and asked for once only.
	assertion = "expired-jwt"
	err = m.SignIn(ctx, s, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("SignIn with a refused JWT: %v; want the server's invalid_grant", err)
	}
	as.mu.Lock()
	n := len(as.assertions)
	as.mu.Unlock()
	if n != 3 {
		t.Errorf("token requests: %d, want 3 (no second try of the refused JWT)", n)
	}
}
