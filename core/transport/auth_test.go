package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
)

// refuse answers every request with status and the WWW-Authenticate header
// challenge, as a server that wants sign-in does.
func refuse(t *testing.T, status int, challenge string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", challenge)
		}
		http.Error(w, http.StatusText(status), status)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestAuthErrorThroughMCPClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		challenge string
		want      AuthError
		wantWords string
	}{
		{
			name:   "401 expired token",
			status: http.StatusUnauthorized,
			challenge: `Bearer realm="mcp", error="invalid_token", error_description="The access token expired", ` +
				`resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"`,
			want: AuthError{
				Status:           401,
				Scope:            "files:read files:write",
				ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource",
				ErrorCode:        "invalid_token",
				ErrorDescription: "The access token expired",
			},
			wantWords: "sign in again",
		},
		{
			name:      "401 no token yet",
			status:    http.StatusUnauthorized,
			challenge: `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`,
			want:      AuthError{Status: 401, ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource"},
			wantWords: "needs you to sign in",
		},
		{
			name:      "403 insufficient scope",
			status:    http.StatusForbidden,
			challenge: `Bearer error="insufficient_scope", scope="admin"`,
			want:      AuthError{Status: 403, Scope: "admin", ErrorCode: "insufficient_scope"},
			wantWords: "more permissions",
		},
		{
			name:      "403 without a challenge",
			status:    http.StatusForbidden,
			want:      AuthError{Status: 403},
			wantWords: "refused access",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			ts := refuse(t, tt.status, tt.challenge)
			tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
			if err != nil {
				t.Fatal(err)
			}
			c := startClient(t, tr)
			err = initialize(ctx, c)
			if err == nil {
				t.Fatal("Initialize succeeded against a server that refuses everyone")
			}
			if !IsAuthError(err) {
				t.Fatalf("IsAuthError(%v) = false, want true", err)
			}
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("errors.As(%v, *AuthError) = false", err)
			}
			// mcp-go still wraps it as its transport error, which the
			// connection manager looks for.
			var te *mcptransport.Error
			if !errors.As(err, &te) {
				t.Errorf("errors.As(%v, *transport.Error) = false: mcp-go did not wrap the error", err)
			}
			got := *ae
			got.WWWAuthenticate, got.Schemes, got.DPoPAlgs = "", nil, nil // TestChallengeSchemes
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("AuthError = %+v\nwant %+v", got, tt.want)
			}
			if ae.WWWAuthenticate != tt.challenge {
				t.Errorf("WWWAuthenticate = %q, want %q", ae.WWWAuthenticate, tt.challenge)
			}
			if !strings.Contains(ae.Error(), tt.wantWords) {
				t.Errorf("Error() = %q, want it to say %q", ae.Error(), tt.wantWords)
			}
			if ShouldFallBackToSSE(err) {
				t.Errorf("ShouldFallBackToSSE(%v) = true: a sign-in problem is not an old server", err)
			}
		})
	}
}

func TestAuthErrorOverSSE(t *testing.T) {
	t.Parallel()
	ts := refuse(t, http.StatusUnauthorized, `Bearer error="invalid_token"`)
	tr, err := NewSSE(ts.URL+"/sse", nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	err = tr.Start(testCtx(t))
	var ae *AuthError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.ErrorCode != "invalid_token" {
		t.Fatalf("Start = %v, want an *AuthError with status 401 and error invalid_token", err)
	}
}

func TestAuthWithoutTheStackStillCounts(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	ts := refuse(t, http.StatusUnauthorized, `Bearer realm="x"`)
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, &http.Client{}, discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	err = initialize(ctx, c)
	if !IsAuthError(err) {
		t.Fatalf("IsAuthError(%v) = false: mcp-go's own 401 error must count too", err)
	}
}

// tokens is a TokenSource whose token the test can change.
type tokens struct {
	mu    sync.Mutex
	token string
	err   error
	asked int
}

func (s *tokens) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return s.token, s.err
}

func (s *tokens) set(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

func TestAuthTokenIsAskedForEveryRequest(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	var mu sync.Mutex
	want := "token-1"
	requireToken := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ok := r.Header.Get("Authorization") == "Bearer "+want
			mu.Unlock()
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	ts := newStreamableServer(t, newMCPServer(nil), requireToken)
	src := &tokens{token: "token-1"}
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{Tokens: src}), discard())
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, tr)
	connectAndUse(t, ctx, c)

	// The token is refreshed: the server now wants the new one, and the
	// next request must carry it without a new connection.
	mu.Lock()
	want = "token-2"
	mu.Unlock()
	src.set("token-2")
	if got, err := callTool(ctx, c, "echo", map[string]any{"text": "refreshed"}); err != nil || got != "refreshed" {
		t.Fatalf("CallTool after the token changed = %q, %v", got, err)
	}

	// The token is revoked: the server refuses it, and the error says so.
	mu.Lock()
	want = "token-3"
	mu.Unlock()
	_, err = callTool(ctx, c, "echo", map[string]any{"text": "x"})
	var ae *AuthError
	if !errors.As(err, &ae) || ae.ErrorCode != "invalid_token" {
		t.Fatalf("CallTool with a revoked token = %v, want an *AuthError saying invalid_token", err)
	}
}

func TestAuthTokenSourceErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		wantAuth bool
	}{
		{"needs sign-in", &AuthError{Err: errors.New("no refresh token stored")}, true},
		{"needs sign-in, wrapped", fmt.Errorf("refreshing: %w", &AuthError{}), true},
		{"other failure", errors.New("the keychain is locked"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			hit := make(chan struct{}, 10)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hit <- struct{}{}
			}))
			t.Cleanup(ts.Close)
			tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{Tokens: &tokens{err: tt.err}}), discard())
			if err != nil {
				t.Fatal(err)
			}
			c := startClient(t, tr)
			err = initialize(ctx, c)
			if err == nil {
				t.Fatal("Initialize succeeded without a token")
			}
			if IsAuthError(err) != tt.wantAuth {
				t.Errorf("IsAuthError(%v) = %v, want %v", err, !tt.wantAuth, tt.wantAuth)
			}
			if !tt.wantAuth && !strings.Contains(err.Error(), "getting the sign-in token") {
				t.Errorf("error %q does not say the token could not be had", err)
			}
			if len(hit) != 0 {
				t.Errorf("the server got %d requests although there was no token", len(hit))
			}
		})
	}
}

func TestAuthTokenStaysOnItsHost(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	var mu sync.Mutex
	var elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key"))
		mu.Unlock()
	}))
	t.Cleanup(other.Close)
	var sameHostAuth string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusTemporaryRedirect)
		case "/here":
			mu.Lock()
			sameHostAuth = r.Header.Get("Authorization")
			mu.Unlock()
		}
	}))
	t.Cleanup(ts.Close)

	hc := NewHTTPClient(HTTPOptions{Tokens: &tokens{token: "secret"}})
	post := func(path string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("X-Api-Key", "key")
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}

	if err := post("/away"); err == nil || !strings.Contains(err.Error(), "another host") {
		t.Errorf("POST redirected to another host: err = %v, want a refusal", err)
	}
	mu.Lock()
	if len(elsewhere) != 0 {
		t.Errorf("the other host got %q: the token or the API key left their server", elsewhere)
	}
	mu.Unlock()

	// Even a client that follows every redirect does not carry the token
	// to another host: the auth layer checks where the chain began.
	loose := &http.Client{Transport: hc.Transport}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/away", strings.NewReader(`{}`))
	resp, err := loose.Do(req)
	if err != nil {
		t.Fatalf("POST through a client that follows redirects: %v", err)
	}
	resp.Body.Close()
	mu.Lock()
	if len(elsewhere) != 1 || strings.HasPrefix(elsewhere[0], "Bearer") {
		t.Errorf("the other host got %q, want one request without the token", elsewhere)
	}
	mu.Unlock()

	if err := post("/moved"); err != nil {
		t.Fatalf("POST redirected on the same host: %v", err)
	}
	mu.Lock()
	if sameHostAuth != "Bearer secret" {
		t.Errorf("Authorization after a same-host redirect = %q, want the token", sameHostAuth)
	}
	mu.Unlock()
}

func TestAuthChallengeParsing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		want   AuthError
	}{
		{"bearer with everything",
			[]string{`Bearer realm="example", scope="openid profile", error="invalid_token", error_description="expired", resource_metadata="https://a.example/prm"`},
			AuthError{Scope: "openid profile", ErrorCode: "invalid_token", ErrorDescription: "expired", ResourceMetadata: "https://a.example/prm"}},
		{"token values and odd spacing",
			[]string{`Bearer   error = insufficient_scope ,scope=admin`},
			AuthError{ErrorCode: "insufficient_scope", Scope: "admin"}},
		{"case-insensitive scheme and names",
			[]string{`bearer SCOPE="a", Resource_Metadata="https://b.example/prm"`},
			AuthError{Scope: "a", ResourceMetadata: "https://b.example/prm"}},
		{"bearer after basic in one value",
			[]string{`Basic realm="x", Bearer scope="s", error="invalid_token"`},
			AuthError{Scope: "s", ErrorCode: "invalid_token"}},
		{"bearer in a second header",
			[]string{`Basic realm="x"`, `Bearer scope="t"`},
			AuthError{Scope: "t"}},
		{"token68 before bearer",
			[]string{`Negotiate YWJjZA==, Bearer scope="u"`},
			AuthError{Scope: "u"}},
		{"escaped quotes",
			[]string{`Bearer error_description="say \"hi\", then go\\away"`},
			AuthError{ErrorDescription: `say "hi", then go\away`}},
		{"comma inside a quoted value",
			[]string{`Bearer scope="a,b", error="invalid_token"`},
			AuthError{Scope: "a,b", ErrorCode: "invalid_token"}},
		{"unterminated quote",
			[]string{`Bearer scope="a b`},
			AuthError{Scope: "a b"}},
		{"no bearer: first challenge",
			[]string{`DPoP scope="v", error="invalid_token"`},
			AuthError{Scope: "v", ErrorCode: "invalid_token"}},
		{"scheme only", []string{`Bearer`}, AuthError{}},
		{"garbage", []string{`=,,"" ;; ==`}, AuthError{}},
		{"none", nil, AuthError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: 401, Header: http.Header{}}
			for _, h := range tt.header {
				resp.Header.Add("WWW-Authenticate", h)
			}
			got := *newAuthError(resp)
			got.Schemes, got.DPoPAlgs = nil, nil // TestChallengeSchemes
			tt.want.Status = 401
			tt.want.WWWAuthenticate = strings.Join(tt.header, ", ")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("newAuthError(%q) =\n %+v\nwant %+v", tt.header, got, tt.want)
			}
		})
	}
}

// TestChallengeSchemes checks what a challenge says of the token schemes
// the server takes, which decides whether mcptray binds tokens (DPoP).
func TestChallengeSchemes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header        []string
		schemes, algs []string
		dpop          bool
	}{
		// The TypeScript SDK's requireBearerAuth, refusing a DPoP token.
		{[]string{`Bearer error="invalid_token", error_description="Invalid Authorization header format, expected 'Bearer TOKEN'", resource_metadata="https://a.example/prm"`},
			[]string{"Bearer"}, nil, false},
		{[]string{`DPoP algs="ES256 PS256", error="invalid_token"`}, []string{"DPoP"}, []string{"ES256", "PS256"}, true},
		{[]string{`Bearer realm="x"`, `dpop error="use_dpop_nonce"`}, []string{"Bearer", "dpop"}, []string{}, true},
		{nil, nil, nil, false},
	}
	for _, tt := range tests {
		resp := &http.Response{StatusCode: 401, Header: http.Header{}}
		for _, h := range tt.header {
			resp.Header.Add("WWW-Authenticate", h)
		}
		got := newAuthError(resp)
		if !reflect.DeepEqual(got.Schemes, tt.schemes) || !reflect.DeepEqual(got.DPoPAlgs, tt.algs) || got.Offers("DPoP") != tt.dpop {
			t.Errorf("newAuthError(%q): schemes %q, algs %q, offers DPoP %v; want %q, %q, %v",
				tt.header, got.Schemes, got.DPoPAlgs, got.Offers("DPoP"), tt.schemes, tt.algs, tt.dpop)
		}
	}
}

func TestAuthErrorWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *AuthError
		want string
	}{
		{&AuthError{Status: 401}, "the server needs you to sign in (HTTP 401)"},
		{&AuthError{Status: 401, ErrorCode: "invalid_token"}, "the server no longer accepts this sign-in (it expired or was revoked): sign in again"},
		{&AuthError{Status: 403, ErrorCode: "insufficient_scope", Scope: "admin"}, `the server needs more permissions than this sign-in gives (it asks for "admin"): sign in again`},
		{&AuthError{Status: 403, ErrorCode: "insufficient_scope"}, "the server needs more permissions than this sign-in gives: sign in again"},
		{&AuthError{Status: 401, ErrorCode: "invalid_token", DPoPRefused: true}, "the server does not take this sign-in, which is bound to a key (DPoP): sign in again, and mcptray will sign in to it without one"},
		{&AuthError{Status: 403}, "the server refused access (HTTP 403): sign in with an account that may use it"},
		{&AuthError{Err: errors.New("no token stored")}, "sign-in needed: no token stored"},
		{&AuthError{}, "sign-in needed"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", *tt.err, got, tt.want)
		}
	}
	cause := errors.New("cause")
	if !errors.Is(&AuthError{Err: cause}, cause) {
		t.Error("AuthError does not unwrap to the TokenSource's error")
	}
	for _, err := range []error{nil, errors.New("x"), context.Canceled, mcptransport.ErrSessionTerminated} {
		if IsAuthError(err) {
			t.Errorf("IsAuthError(%v) = true, want false", err)
		}
	}
}
