package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// maxErrorBody bounds how much of a 404 body is read to look for a JSON-RPC
// error; such a body is a line or two.
const maxErrorBody = 64 << 10

// sessionTripper turns a 404 whose body is JSON-RPC error -32001 ("session
// not found", what a server that restarted answers for the session it no
// longer knows) into a *SessionExpiredError.
//
// mcp-go reads no 404 body: streamable HTTP reports every 404 as
// ErrSessionTerminated, and the SSE transport puts the body into an error
// string. Answering with a typed error makes the signal the same whatever
// the transport and whatever mcp-go's wording. Only POSTs other than
// initialize are looked at: a 404 to initialize means "no streamable HTTP
// here" (statusTripper's job), and a 404 to the GET stream is left to mcp-go,
// which then waits for the caller to start a new session.
type sessionTripper struct {
	next http.RoundTripper
}

func (t sessionTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusNotFound || req.Method != http.MethodPost {
		return resp, err
	}
	if rpcMethod(req) == methodInitialize {
		return resp, nil
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if readErr == nil {
		if e := sessionExpiredFrom(resp.StatusCode, body); e != nil {
			resp.Body.Close()
			return nil, e
		}
	}
	// Not ours: hand the body on as it came.
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	return resp, nil
}

// sessionExpiredFrom reads a JSON-RPC error response and returns the
// *SessionExpiredError it means, or nil.
func sessionExpiredFrom(status int, body []byte) *SessionExpiredError {
	var msg struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &msg) != nil || msg.Error == nil || msg.Error.Code != codeSessionNotFound {
		return nil
	}
	return &SessionExpiredError{Status: status, Code: msg.Error.Code, Message: msg.Error.Message}
}
