package transport

import (
	"errors"
	"strings"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
)

// codeSessionNotFound is the JSON-RPC error code servers (the TypeScript SDK
// among them) send with HTTP 404 for a session they do not know.
const codeSessionNotFound = -32001

// SessionExpiredError means the server no longer knows the session the
// request named: it restarted, or dropped the session. The cure is a new
// connection; the call may then be tried once more.
type SessionExpiredError struct {
	Status  int    // the HTTP status, 404
	Code    int    // the JSON-RPC error code, -32001
	Message string // the server's words, e.g. "Session not found"
}

func (e *SessionExpiredError) Error() string {
	return "the server no longer knows this session (it probably restarted)"
}

// Is makes errors.Is(err, mcp-go's ErrSessionTerminated) true, so code that
// knows only mcp-go's signal sees this one too.
func (e *SessionExpiredError) Is(target error) bool {
	return target == mcptransport.ErrSessionTerminated
}

// IsSessionExpired reports whether err means the server has forgotten the
// session, so the connection must be made anew. It knows three signals:
//
//   - mcp-go's ErrSessionTerminated: streamable HTTP answered 404;
//   - a *SessionExpiredError: NewHTTPClient's stack saw HTTP 404 carrying
//     JSON-RPC error -32001;
//   - an error whose text carries both a 404 status and "code":-32001 (with
//     or without a space): how mcp-go's SSE transport reports such an answer
//     when the HTTP client lacks the stack.
func IsSessionExpired(err error) bool {
	if err == nil {
		return false
	}
	var se *SessionExpiredError
	if errors.As(err, &se) || errors.Is(err, mcptransport.ErrSessionTerminated) {
		return true
	}
	msg := err.Error()
	return hasStatus404(msg) && hasSessionNotFoundCode(msg)
}

// hasSessionNotFoundCode reports whether msg holds the JSON member
// "code":-32001, with any spacing after the colon.
func hasSessionNotFoundCode(msg string) bool {
	const key, code = `"code":`, "-32001"
	for rest := msg; ; {
		i := strings.Index(rest, key)
		if i < 0 {
			return false
		}
		rest = strings.TrimLeft(rest[i+len(key):], " \t\r\n")
		if strings.HasPrefix(rest, code) && (len(rest) == len(code) || !isDigit(rest[len(code)])) {
			return true
		}
	}
}

// hasStatus404 reports whether msg contains 404 as a number of its own, not
// as part of a longer one (a port, an id).
func hasStatus404(msg string) bool {
	for i := 0; ; {
		j := strings.Index(msg[i:], "404")
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+3
		before := start == 0 || !isDigit(msg[start-1])
		after := end == len(msg) || !isDigit(msg[end])
		if before && after {
			return true
		}
		i = start + 1
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
