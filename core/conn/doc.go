// Package conn is mcptray's connection manager: it connects to every
// approved, enabled server, keeps it connected, and knows each server's
// state and tools at every moment.
//
// A Manager takes a config.Set (Apply) and touches only the servers that
// changed since the last one. Each server has one goroutine that owns its
// connection: it waits for a place in a sliding window (a few stdio servers
// at a time, more remote ones; the slowest to connect last time first, as
// remembered in Options.HistoryFile; the next two stdio servers in line may
// start their processes meanwhile, and only their handshakes wait for a
// place), connects under the connect timeout, lists the tools, and then
// watches the connection, restarting a crashed server
// with backoff. Every state change goes through the one transition table in
// state.go and reaches front ends through Subscribe; they rebuild what they
// show from Report.
//
// Calls go through mcp-go's client, except on the gateway's hot path: a
// tools/call on a session in a revision before 2026-07-28, over stdio or
// streamable HTTP, goes straight through the session's transport and
// decodes the usual answer once (direct.go).
//
// conn never imports a front end, never prompts a person itself (the
// elicitation handler is the front end's), and never logs a header value,
// an environment value or a token.
package conn
