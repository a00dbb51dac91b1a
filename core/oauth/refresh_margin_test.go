package oauth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
	"github.com/mcptray/mcptray/test/authserver"
)

// TestShortLivedTokenIsNotRefreshedAtOnce: with 20-second access tokens,
// a fresh token serves the requests that follow the sign-in; none of them
// refreshes it, as they did while the margin was a fixed minute.
func TestShortLivedTokenIsNotRefreshedAtOnce(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	srv.SetAccessTTL(20 * time.Second)
	m := newTestManager(t, newMemStore(), t.TempDir(), nil)
	s := &config.Server{Name: "short", Transport: config.HTTP, URL: srv.MCPURL}
	ctx := context.Background()
	if err := m.SignIn(ctx, s, nil); err != nil {
		t.Fatal(err)
	}

	hc := transport.NewHTTPClient(transport.HTTPOptions{Tokens: m.TokenSource(s)})
	defer hc.CloseIdleConnections()
	for i := range 5 {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.MCPURL, strings.NewReader(initializeBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: HTTP %d", i, resp.StatusCode)
		}
	}
	st := srv.Stats()
	if st.Accepted != 5 || st.Issued != 1 || st.Refreshes != 0 {
		t.Errorf("the servers saw %+v; want 5 requests accepted, one token grant and no refresh", st)
	}
}
