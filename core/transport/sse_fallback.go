package transport

import (
	"errors"
	"fmt"
	"net/http"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
)

// StatusError is a request of the JSON-RPC method Method that the server
// answered with the HTTP error Status.
type StatusError struct {
	Method string
	Status int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("the server answered %s with HTTP %d %s", e.Method, e.Status, http.StatusText(e.Status))
}

// ShouldFallBackToSSE reports whether err, from initialize over streamable
// HTTP, means the server speaks only the old SSE transport: the POST was
// answered 400, 404 or 405 (the MCP spec's backwards-compatibility rule).
//
// The status comes from the *StatusError that NewHTTPClient's stack returns
// for a failed initialize. With an HTTP client that lacks the stack, mcp-go's
// ErrLegacySSEServer (any 4xx) is the best there is, and counts.
func ShouldFallBackToSSE(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		if se.Method != methodInitialize {
			return false
		}
		switch se.Status {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
			return true
		}
		return false
	}
	return errors.Is(err, mcptransport.ErrLegacySSEServer)
}
