package transport

import (
	"io"
	"mime"
	"net/http"
)

// limitTripper bounds each message in a response at MaxMessageSize: the
// whole body for a JSON answer, each event for an SSE stream (a stream is
// long-lived and may rightly carry far more in all). Reading past the bound
// fails with *MessageTooLargeError, which mcp-go hands on as the request's
// error.
//
// A 101 Switching Protocols answer (a WebSocket handshake) is left alone: its
// body is the connection, which the WebSocket transport bounds per message.
type limitTripper struct {
	next http.RoundTripper
}

func (t limitTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusSwitchingProtocols || resp.Body == nil {
		return resp, err
	}
	mode := limitWhole
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		mode = limitEvent
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{&limitReader{r: resp.Body, limit: MaxMessageSize, mode: mode}, resp.Body}
	return resp, nil
}
