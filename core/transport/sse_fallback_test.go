package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/server"
)

// postAnswers answers every POST with status and passes the rest to next, as
// a server with an SSE-only or broken POST endpoint does.
func postAnswers(status int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/mcp" {
			http.Error(w, http.StatusText(status), status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestSSEFallbackDecision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// handler serves the server; sseURL is where the SSE stream is,
		// relative to the server ("" when there is none).
		handler      func(*server.MCPServer) http.Handler
		sseURL       string
		wantFallback bool
		wantStatus   int
	}{
		{
			// POST /mcp is not routed by mcp-go's SSE server: 404.
			name:         "SSE-only server, 404",
			handler:      func(s *server.MCPServer) http.Handler { return server.NewSSEServer(s) },
			sseURL:       "/sse",
			wantFallback: true,
			wantStatus:   404,
		},
		{
			// The SSE stream at the very URL configured: POST there is 405,
			// and the fallback uses the same URL, as the spec says.
			name: "SSE-only server on the same URL, 405",
			handler: func(s *server.MCPServer) http.Handler {
				return server.NewSSEServer(s, server.WithSSEEndpoint("/mcp"))
			},
			sseURL:       "/mcp",
			wantFallback: true,
			wantStatus:   405,
		},
		{
			name: "400",
			handler: func(s *server.MCPServer) http.Handler {
				return postAnswers(http.StatusBadRequest, server.NewSSEServer(s, server.WithSSEEndpoint("/mcp")))
			},
			sseURL:       "/mcp",
			wantFallback: true,
			wantStatus:   400,
		},
		{
			name: "429 is not an old server",
			handler: func(s *server.MCPServer) http.Handler {
				return postAnswers(http.StatusTooManyRequests, http.NotFoundHandler())
			},
			wantStatus: 429,
		},
		{
			name: "406 is not an old server",
			handler: func(s *server.MCPServer) http.Handler {
				return postAnswers(http.StatusNotAcceptable, http.NotFoundHandler())
			},
			wantStatus: 406,
		},
		{
			name: "500 is not an old server",
			handler: func(s *server.MCPServer) http.Handler {
				return postAnswers(http.StatusInternalServerError, http.NotFoundHandler())
			},
		},
		{
			name: "401 is sign-in, not an old server",
			handler: func(s *server.MCPServer) http.Handler {
				return postAnswers(http.StatusUnauthorized, http.NotFoundHandler())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			srv := newMCPServer(nil)
			ts := newHTTPTestServer(t, tt.handler(srv))
			hc := NewHTTPClient(HTTPOptions{})

			tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, hc, discard())
			if err != nil {
				t.Fatal(err)
			}
			err = initialize(ctx, startClient(t, tr))
			if err == nil {
				t.Fatal("Initialize over streamable HTTP succeeded against a server without it")
			}
			if got := ShouldFallBackToSSE(err); got != tt.wantFallback {
				t.Fatalf("ShouldFallBackToSSE(%v) = %v, want %v", err, got, tt.wantFallback)
			}
			var se *StatusError
			if tt.wantStatus != 0 && (!errors.As(err, &se) || se.Status != tt.wantStatus || se.Method != "initialize") {
				t.Fatalf("error %v carries %+v, want a *StatusError for initialize with %d", err, se, tt.wantStatus)
			}
			if !tt.wantFallback {
				return
			}

			// The fallback itself: the same server over SSE.
			sse, err := NewSSE(ts.URL+tt.sseURL, nil, hc, discard())
			if err != nil {
				t.Fatal(err)
			}
			connectAndUse(t, ctx, startClient(t, sse))
		})
	}
}

func TestSSEFallbackWithDiscoverProbe(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	ts := newHTTPTestServer(t, server.NewSSEServer(newMCPServer(nil), server.WithSSEEndpoint("/mcp")))
	tr, err := NewStreamableHTTP(ts.URL+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	// No pinned version: mcp-go first probes server/discover, whose 405
	// must not be mistaken for initialize's.
	c := client.NewClient(tr)
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	err = initialize(ctx, c)
	if !ShouldFallBackToSSE(err) {
		t.Fatalf("ShouldFallBackToSSE(%v) = false, want true", err)
	}
}

func TestSSEFallbackNotForOtherErrors(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)

	// Nothing listens: a network error is no reason to try SSE.
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	tr, err := NewStreamableHTTP(url+"/mcp", nil, NewHTTPClient(HTTPOptions{}), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := initialize(ctx, startClient(t, tr)); err == nil || ShouldFallBackToSSE(err) {
		t.Errorf("unreachable server: ShouldFallBackToSSE(%v) = true, want false", err)
	}

	for _, tt := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("initialize failed with 404"), false},
		{&StatusError{Method: "tools/list", Status: 404}, false},
		{fmt.Errorf("x: %w", &StatusError{Method: "initialize", Status: 405}), true},
		// mcp-go's own verdict, when the HTTP client lacks the stack.
		{fmt.Errorf("x: %w", mcptransport.ErrLegacySSEServer), true},
	} {
		if got := ShouldFallBackToSSE(tt.err); got != tt.want {
			t.Errorf("ShouldFallBackToSSE(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	if got, want := (&StatusError{Method: "initialize", Status: 405}).Error(), "the server answered initialize with HTTP 405 Method Not Allowed"; got != want {
		t.Errorf("StatusError.Error() = %q, want %q", got, want)
	}
}
