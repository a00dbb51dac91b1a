package transport

import (
	"fmt"
	"io"
	"net/http"
)

// authTripper signs requests with the TokenSource's bearer token and turns a
// 401 or 403 answer into an *AuthError.
//
// It returns an error rather than the 401 response because mcp-go, given the
// response, keeps too little: a 401 becomes its AuthorizationRequiredError
// with only the resource_metadata URL, and a 403 becomes "likely a legacy SSE
// server" on initialize, or a plain "request failed with status 403"
// elsewhere, which no caller could tell from any other failure. An error from
// RoundTrip reaches the caller through every mcp-go transport wrapped with
// %w (and through coder/websocket's dial), so errors.As finds it.
type authTripper struct {
	next   http.RoundTripper
	tokens TokenSource // nil: no auth
}

func (t *authTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.tokens != nil && sameHostAsFirst(req) {
		token, err := t.tokens.Token(req.Context())
		if err != nil {
			if IsAuthError(err) || req.Context().Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("getting the sign-in token: %w", err)
		}
		if token != "" {
			// A RoundTripper must not change the request it was given.
			req = req.Clone(req.Context())
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		authErr := newAuthError(resp)
		// Read a little so the connection can be reused; a challenge body
		// is small.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, authErr
	}
	return resp, nil
}

// sameHostAsFirst reports whether req goes to the host of the request that
// started its redirect chain, so that a redirect never carries the token to
// another server.
func sameHostAsFirst(req *http.Request) bool {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	return first.URL.Host == req.URL.Host
}
