// Package transport is how mcptray reaches one MCP server: a program run as
// a child process and spoken to over its stdin and stdout, or a remote
// server over streamable HTTP, the older SSE transport or a WebSocket. Each
// transport is an mcp-go transport.Interface, so mcp-go's client runs the
// protocol on top; this package adds what a desktop app needs underneath.
// It knows nothing of configs, connection states or front ends (package
// conn does), and never logs a program's arguments or environment, a header
// value or a token.
//
// # Programs (Stdio)
//
// NewStdio runs a server's program with what runs programs of the
// person's login-shell environment (LoginEnv: a GUI app's own PATH lacks
// what the shell profile adds; sandbox.FromLogin: its PATH, locale, home
// and runtimes' settings, not the tokens a profile exports) and the
// variables its config names, looks the program up on that PATH, and starts it in a process group
// of its own (a job object on Windows, which it is in before it runs its
// first instruction: start_windows.go). On Linux the child is also tied to
// mcptray's life: if mcptray is killed, the kernel kills it (start_linux.go).
// mcptray learns that the child exited as soon as it does, without reaping
// it, and stops it, and everything it started, in the order the MCP spec
// gives: close stdin, wait, SIGTERM to the group, a grace period, SIGKILL to
// the group. The newest part of its stderr is kept for the UI, and a line
// longer than MaxMessageSize on stdout stops it. ExitError says how a
// program ended.
//
// # Remote servers
//
// NewHTTPClient builds the HTTP client of one remote server as a stack of
// http.RoundTrippers, each doing one thing, outermost first:
//
//   - a timeout for each request's response headers, tools/call excepted
//     (timeoutTripper, *RequestTimeoutError);
//   - the bearer token from a TokenSource (or a DPoP-bound token and its
//     proof from a ProofSource, told when the server refuses it as one
//     that knows only Bearer tokens), and 401/403 as *AuthError
//     (authTripper);
//   - the status of a failed initialize as *StatusError (statusTripper), from
//     which ShouldFallBackToSSE decides whether to try the older transport;
//   - a 404 for a session the server forgot as *SessionExpiredError
//     (sessionTripper);
//   - the Accept header MCP requires (acceptTripper);
//   - MaxMessageSize on each message of a response, *MessageTooLargeError
//     past it (limitTripper).
//
// NewStreamableHTTP and NewSSE run mcp-go's HTTP transports over that
// client; NewWebSocket is mcptray's own WebSocket transport over it.
package transport
