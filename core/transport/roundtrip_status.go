package transport

import (
	"io"
	"net/http"
)

// statusTripper turns a 4xx answer to initialize into a *StatusError that
// keeps the status.
//
// Per the MCP spec, a server that answers initialize over POST with 400, 404
// or 405 predates streamable HTTP and speaks only the old SSE transport. mcp-go
// reports every 4xx to initialize as the same ErrLegacySSEServer, status
// dropped, so a 429 or 422 would send mcptray to SSE for nothing, and its
// message would blame the wrong thing. Keeping the status lets
// ShouldFallBackToSSE decide on exactly 400, 404 and 405, and lets the error
// say what the server answered. 401 and 403 are the auth layer's.
type statusTripper struct {
	next http.RoundTripper
}

func (t statusTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 || resp.StatusCode >= 500 ||
		resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return resp, err
	}
	method := rpcMethod(req)
	if method != methodInitialize {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return nil, &StatusError{Method: method, Status: resp.StatusCode}
}
