package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeProofs is a ProofSource that makes stand-in proofs naming the
// nonce they were made with.
type fakeProofs struct {
	mu     sync.Mutex
	nonces []string
	// refusals counts DPoPRefused calls; after one, bearer is the token
	// it gives ("" for none).
	refusals int
	bearer   string
}

func (f *fakeProofs) Token(context.Context) (string, error) { return "tok", nil }

func (f *fakeProofs) Authorization(_ context.Context, method, target, nonce string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nonces = append(f.nonces, nonce)
	if f.refusals > 0 {
		if f.bearer == "" {
			return "", "", nil
		}
		return "Bearer " + f.bearer, "", nil
	}
	return "DPoP tok", "proof:" + method + ":" + nonce, nil
}

func (f *fakeProofs) DPoPRefused(context.Context) {
	f.mu.Lock()
	f.refusals++
	f.mu.Unlock()
}

func TestDPoPNonceRetry(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string // Authorization, DPoP and body of each request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+" "+r.Header.Get("DPoP")+" "+string(body))
		mu.Unlock()
		if r.Header.Get("DPoP") != "proof:"+r.Method+":n1" {
			w.Header().Set("DPoP-Nonce", "n1")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	ps := &fakeProofs{}
	hc := NewHTTPClient(HTTPOptions{Tokens: ps})
	for _, body := range []string{"first", "second"} {
		resp, err := hc.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d", body, resp.StatusCode)
		}
	}
	want := []string{
		"DPoP tok proof:POST: first",
		"DPoP tok proof:POST:n1 first",  // sent again, body and all
		"DPoP tok proof:POST:n1 second", // the nonce remembered
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestDPoPNonceRetriedOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		// A server that wants a new nonce every time.
		w.Header().Set("DPoP-Nonce", "n"+strings.Repeat("x", n))
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	hc := NewHTTPClient(HTTPOptions{Tokens: &fakeProofs{}})
	_, err := hc.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if !IsAuthError(err) {
		t.Fatalf("err = %v; want an AuthError", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 2 {
		t.Errorf("requests: %d, want 2 (one more with the nonce, no more)", requests)
	}
}

func TestBearerTokenSourceUnchanged(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization") + "|" + r.Header.Get("DPoP")
	}))
	t.Cleanup(srv.Close)
	hc := NewHTTPClient(HTTPOptions{Tokens: staticToken("tok")})
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if g := <-got; g != "Bearer tok|" {
		t.Errorf("headers = %q, want a bearer token and no proof", g)
	}
}

// staticToken is a plain TokenSource.
type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

// bearerOnly answers like the TypeScript SDK's requireBearerAuth: any
// Authorization header that is not Bearer is refused with a Bearer
// invalid_token challenge. It records each request's Authorization header
// and body.
func bearerOnly(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+" "+string(body))
		mu.Unlock()
		if scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " "); !strings.EqualFold(scheme, "Bearer") {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="Invalid Authorization header format, expected 'Bearer TOKEN'"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestDPoPRefusedThenBearer(t *testing.T) {
	t.Parallel()
	srv, seen := bearerOnly(t)
	// A source that has a plain token at once (a machine identity).
	ps := &fakeProofs{bearer: "plain"}
	resp, err := NewHTTPClient(HTTPOptions{Tokens: ps}).Post(srv.URL, "application/json", strings.NewReader("body"))
	if err != nil {
		t.Fatalf("after the refusal: %v; want the request sent again with the plain token", err)
	}
	resp.Body.Close()
	want := "DPoP tok body\nBearer plain body"
	if got := strings.Join(seen(), "\n"); got != want || ps.refusals != 1 {
		t.Errorf("requests:\n%s\nwant:\n%s\n(source told %d times, want 1)", got, want, ps.refusals)
	}
}

func TestDPoPRefusedNeedsSignIn(t *testing.T) {
	t.Parallel()
	srv, seen := bearerOnly(t)
	ps := &fakeProofs{} // no token without the key: the person signs in
	_, err := NewHTTPClient(HTTPOptions{Tokens: ps}).Post(srv.URL, "application/json", strings.NewReader("body"))
	var ae *AuthError
	if !errors.As(err, &ae) || !ae.DPoPRefused || ae.ErrorCode != "invalid_token" {
		t.Fatalf("err = %v; want an AuthError that says the server refused DPoP", err)
	}
	if got := seen(); len(got) != 1 || ps.refusals != 1 {
		t.Errorf("requests %q, source told %d times; want one request, told once", got, ps.refusals)
	}
}

// TestDPoPChallengeIsNoRefusal: a server that takes DPoP and refuses a
// token with a DPoP challenge (expired, revoked) has not refused DPoP.
func TestDPoPChallengeIsNoRefusal(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="x", DPoP error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	ps := &fakeProofs{}
	_, err := NewHTTPClient(HTTPOptions{Tokens: ps}).Get(srv.URL)
	var ae *AuthError
	if !errors.As(err, &ae) || ae.DPoPRefused || ps.refusals != 0 {
		t.Errorf("err = %v, source told %d times; want a plain AuthError, no refusal", err, ps.refusals)
	}
}
