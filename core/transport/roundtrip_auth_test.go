package transport

import (
	"context"
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
}

func (f *fakeProofs) Token(context.Context) (string, error) { return "tok", nil }

func (f *fakeProofs) Authorization(_ context.Context, method, target, nonce string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nonces = append(f.nonces, nonce)
	return "DPoP tok", "proof:" + method + ":" + nonce, nil
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
