package transport

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"time"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
)

// HTTPOptions configures NewHTTPClient.
type HTTPOptions struct {
	// RequestTimeout bounds how long each request, tools/call excepted,
	// waits for the server to start answering. Zero means
	// DefaultRequestTimeout; a negative value means no bound but the
	// request's context.
	RequestTimeout time.Duration
	// Tokens signs every request with a bearer token, or with a DPoP-bound
	// one and its proof when it is a ProofSource. Nil means no sign-in.
	Tokens TokenSource
	// Base sends the requests. Nil means a clone of http.DefaultTransport,
	// so that closing one server's idle connections touches no other.
	Base http.RoundTripper
}

// NewHTTPClient returns the HTTP client for one remote MCP server: a stack of
// RoundTrippers, each doing one thing, outermost first:
//
//   - a fresh timeout for every request's response headers (timeoutTripper);
//   - the bearer or DPoP token, and 401/403 as *AuthError (authTripper);
//   - the status of a failed initialize as *StatusError (statusTripper);
//   - 404 with JSON-RPC -32001 as *SessionExpiredError (sessionTripper);
//   - the Accept header MCP requires (acceptTripper);
//   - MaxMessageSize on each message of a response (limitTripper);
//   - Base.
//
// The client has no Timeout: it would cut the long SSE streams that carry a
// long tool call's answer and the server's notifications. It follows
// redirects only within the same host, so neither the token nor a config's
// static headers (API keys) reach another server.
func NewHTTPClient(opts HTTPOptions) *http.Client {
	base := opts.Base
	if base == nil {
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			base = dt.Clone()
		} else {
			base = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
	}
	timeout := opts.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}

	var rt http.RoundTripper = limitTripper{next: base}
	rt = acceptTripper{next: rt}
	rt = sessionTripper{next: rt}
	rt = statusTripper{next: rt}
	rt = &authTripper{next: rt, tokens: opts.Tokens}
	rt = &timeoutTripper{next: rt, timeout: timeout}
	return &http.Client{Transport: rt, CheckRedirect: sameHostRedirects}
}

// sameHostRedirects lets the client follow up to ten redirects, none of them
// to another host.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("the server redirected more than 10 times")
	}
	if req.URL.Host != via[0].URL.Host {
		return fmt.Errorf("the server redirected to another host (%s); mcptray does not follow, so that its credentials stay with this server", req.URL.Host)
	}
	return nil
}

// sseResponseTimeout is how long the SSE transport waits for the answer to a
// request: mcp-go's default, 60 s, would cut tool calls, which may rightly
// run for hours. It is the tool-call bound (100,000,000 ms, about 27.8 h); the
// caller's context bounds each request more tightly.
const sseResponseTimeout = 100_000_000 * time.Millisecond

// NewStreamableHTTP returns mcp-go's streamable HTTP transport for url,
// sending through hc (NewHTTPClient's stack; nil means one with default
// options) with headers, the config's static headers such as API keys, on
// every request. logger may be nil.
//
// It keeps the GET stream open (continuous listening), because that is where
// a server before revision 2026-07-28 sends notifications such as
// tools/list_changed between requests; it can still speak 2026-07-28 (see
// streamableHTTP), where they come on a subscriptions/listen stream.
func NewStreamableHTTP(url string, headers map[string]string, hc *http.Client, logger *slog.Logger) (mcptransport.Interface, error) {
	if hc == nil {
		hc = NewHTTPClient(HTTPOptions{})
	}
	opts := []mcptransport.StreamableHTTPCOption{
		mcptransport.WithHTTPBasicClient(hc),
		mcptransport.WithHTTPLogger(orDiscard(logger)),
		mcptransport.WithContinuousListening(),
	}
	if len(headers) > 0 {
		opts = append(opts, mcptransport.WithHTTPHeaders(maps.Clone(headers)))
	}
	tr, err := mcptransport.NewStreamableHTTP(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("streamable HTTP: %w", err)
	}
	return &streamableHTTP{StreamableHTTP: tr}, nil
}

// NewSSE returns mcp-go's legacy SSE transport for url, like
// NewStreamableHTTP, with its wait for each answer raised from 60 s to the
// tool-call bound: the caller's context is what bounds a request.
func NewSSE(url string, headers map[string]string, hc *http.Client, logger *slog.Logger) (mcptransport.Interface, error) {
	if hc == nil {
		hc = NewHTTPClient(HTTPOptions{})
	}
	opts := []mcptransport.ClientOption{
		mcptransport.WithHTTPClient(hc),
		mcptransport.WithSSELogger(orDiscard(logger)),
		mcptransport.WithResponseTimeout(sseResponseTimeout),
	}
	if len(headers) > 0 {
		opts = append(opts, mcptransport.WithHeaders(maps.Clone(headers)))
	}
	tr, err := mcptransport.NewSSE(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("SSE: %w", err)
	}
	return tr, nil
}

// orDiscard returns logger, or one that writes nowhere: mcp-go falls back to
// the process-wide slog.Default, which library code must not use.
func orDiscard(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return logger
}
