// Package gateway is mcptray's one MCP endpoint for every AI app on the
// computer: a single MCP server that offers the tools of every connected,
// approved server under their qualified names (mcp__server__tool), with
// their schemas as the servers sent them, and forwards each call to the
// running service. K apps then share N server processes and one set of
// sign-ins.
//
// It has two faces. The HTTP face is streamable HTTP on 127.0.0.1 at a port
// chosen once and kept in mcptray's config, behind a bearer token kept in
// the keychain, Host and Origin checks and strict sessions, served by
// fasthttp (net/http's goroutine per request cost as much as the rest of
// the face); the gateway serves its sessions' POSTs itself (httpface.go,
// httpsession.go), each message straight to its MCP server, and leaves
// requests of MCP's sessionless revision to mcp-go's streamable HTTP
// server through fasthttp's net/http adaptor. A request ends when its app
// closes the connection (gone_unix.go). The stdio face (mcptray
// stdio) is a session on a stream of its own (ServeStream), opened over the
// control endpoint, whose socket's owner check stands in for the token;
// mcptray stdio hands the app's stdin and stdout over, so mcptray reads and
// writes them itself. Both faces' sessions keep what the app said of itself
// in the same way (clientstate.go). On both, the calls apps make all day
// take a shorter way than mcp-go's dispatch, with the same answers: a plain
// tools/list is answered from the list encoded at each change
// (listcache.go), a plain tools/call is decoded once and goes straight to
// its tool's handler (directcall.go). On the stdio face such a call does
// not wait on a goroutine: it is sent on from the goroutine that reads the
// app's messages, and the goroutine that reads the server's answer writes
// the answer to the app, so that a call wakes no goroutine but the readers,
// as a line copier would. Whatever would make those readers wait (asking
// the person, explaining a failure, an app or a server that does not keep
// up) goes to a goroutine of its own. (An HTTP answer is written by its
// POST's handler, which the server's reader wakes.)
//
// A call of a tool whose permission is Ask waits for the person's answer in
// mcptray's window (Options.Ask); with no window it is refused with the
// command that allows the tool. An app's progress token is passed to the
// server, and the server's progress back to that app; a server's question
// during an app's call goes to that app when it declared elicitation, else
// to mcptray's window. roots/list from a server with no project folder, and
// sampling/createMessage, go to the calling app when it declared roots or
// sampling (over HTTP on the call's own stream, as its progress does); else
// the server sees no roots, and its request to the AI model goes to
// mcptray's window for the person to answer (conn's samplingHandler), or is
// refused.
//
// Every call also goes through the flow guard (guard.go, core/guard):
// once an app's session has read private data and untrusted content, its
// call of a tool that can send data out is asked about with the chain in
// words (Options.AskGuard), or refused in the guard's block mode or with
// no window to ask in. Any other call of such a session carries the chain
// to the service (service.Flow), so that while it runs the sandbox's
// proxy asks with the chain about its server's connections to hosts not
// on its list (core/egress), and the guard's decision there goes into the
// call's record.
//
// A session's first lists wait for servers still starting, up to a bound
// (firstlist.go). MCP Apps pass through, each server's views under URIs
// of its own (mcpapps.go).
//
// Each call of a server's tool, from either face or search mode's
// call_tool, is handed to Options.Recorder (the activity record, record.go)
// with its app, outcome and the permission's decision; the recorder shapes
// and masks its arguments off the call's path and never sees its result.
//
// It records each app's session (its clientInfo, face, when it was seen and
// how many tools it was given; never arguments or results; an app on MCP's
// sessionless revision by the clientInfo each request carries, and by the
// app its own token names, when it sends one, modern.go)
// and hands them to the service, whose Apps says whether a connected app
// arrived. Clients (limits.go) is the one table of the apps it recognises
// and the tool limits they enforce.
//
// The gateway must never log or print its token, never keep it anywhere but
// the keychain, and never listen beyond the loopback interface.
package gateway
