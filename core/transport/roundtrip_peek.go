package transport

import (
	"encoding/json"
	"net/http"
)

// JSON-RPC methods the RoundTripper stack treats differently.
const (
	methodInitialize = "initialize"
	methodToolsCall  = "tools/call"
)

// rpcMethod returns the JSON-RPC method a POST request carries, or "" when it
// carries none (a response, a batch, a GET) or its body cannot be read again.
//
// The layers need it because HTTP alone does not say what a request is for:
// a tools/call may rightly wait hours for its answer, and only a failed
// initialize means "try the old SSE transport". It reads a copy of the body
// (GetBody), so the request is untouched; mcp-go builds every request from a
// byte slice, which gives it one. mcp-go writes "method" before "params", so
// the large part of a request is seldom scanned.
func rpcMethod(req *http.Request) string {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()

	dec := json.NewDecoder(body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if key, _ := tok.(string); key == "method" {
			var method string
			if err := dec.Decode(&method); err != nil {
				return ""
			}
			return method
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
