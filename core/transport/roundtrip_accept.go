package transport

import "net/http"

// The Accept values the streamable HTTP transport requires: a POST must
// accept both a JSON answer and an SSE stream, the GET stream only SSE.
const (
	acceptPOST = "application/json, text/event-stream"
	acceptGET  = "text/event-stream"
)

// acceptTripper sets the Accept header every MCP request must carry.
//
// Servers answer 406 Not Acceptable to a POST that does not accept both
// kinds of answer. mcp-go sets the header itself, but a caller's header
// function or static headers from a config can replace or drop it, and the
// legacy SSE transport sends none on its POSTs. A WebSocket handshake (a GET
// with Upgrade) and other methods are left alone.
type acceptTripper struct {
	next http.RoundTripper
}

func (t acceptTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var want string
	switch {
	case req.Method == http.MethodPost:
		want = acceptPOST
	case req.Method == http.MethodGet && req.Header.Get("Upgrade") == "":
		want = acceptGET
	}
	if want == "" || req.Header.Get("Accept") == want {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // a RoundTripper must not change its request
	req.Header.Set("Accept", want)
	return t.next.RoundTrip(req)
}
