// Package control is the local endpoint through which the window and the
// command line reach the running mcptray: HTTP with JSON over a Unix socket
// that only the person who started mcptray can open.
//
// The socket lives in a folder of its own under the per-user runtime folder
// (config.Paths.RuntimeDir, found the same without the session's
// variables, which an app may drop from mcptray stdio's environment; mode
// 0700), is itself mode 0600, and every connection's peer user id is
// checked before a byte is read. Next to it an instance lock (a file lock
// the kernel drops when the process dies) marks the running instance, so a
// socket left behind by a killed mcptray is recognised and replaced.
//
// # Who may change what mcptray trusts
//
// "The same user" is not enough. The servers mcptray runs are the
// person's user too, sandboxed or not, and a named Unix socket is
// reachable by its path (from /proc/net/unix) whatever the sandbox says of
// files before Landlock's ABI 9. A server that could talk to this socket
// could turn its own sandbox off, accept its own held tool change, grant
// itself folders and hosts, or read the gateway's token, and the record
// would say the person did it. So nothing a server runs may make a trust
// decision: approving and denying, the sandbox's switch and grants,
// accepting or keeping held tools, permissions and hiding, answers to the
// servers', the network proxy's and the permission questions, sign-ins,
// secrets, the gateway's token, adding and removing servers and folders.
// Those come only from the person's own tools: the window, the tray and
// the command line. Two checks make it so (guard.go):
//
//   - The control key. The running mcptray writes 32 random bytes (in hex)
//     at each start, before it listens, to control.key beside the socket
//     (key.go): a 0600 file, written to a temporary file and renamed, and
//     removed when it stops. The runtime folder is one a sandboxed server
//     may not read (core/sandbox grants it neither mcptray's folders nor
//     XDG_RUNTIME_DIR, /run/user nor /tmp; on macOS the Seatbelt profile
//     reads none of the per-user temporary folder), while the person's own
//     programs can. Client reads it and
//     sends it with every request (Authorization: Bearer KEY); the endpoint
//     compares it in constant time. A new key each start means a key seen
//     once is worth nothing after.
//   - Peer credentials (Linux). mcptray's sandbox runs each server in a PID
//     namespace of its own, so a connection whose peer (its SO_PEERCRED
//     pid, read as the connection is accepted) lives in another PID
//     namespace than mcptray, or one that cannot be told, is a sandboxed
//     program: refused even with the right key, should one leak to it.
//
// Deny by default: every route needs both, but the two in openRoutes, the
// one place that lists them. GET /v1/hello says whether an mcptray runs
// and which. POST /v1/mcp-stream is an AI app's gateway session through
// mcptray stdio: the app may run in a sandbox of its own that cannot read
// mcptray's folders, and its session only reaches the gateway, whose way
// into the service is the servers' snapshot and tool calls, governed by
// the person's pins and permissions; once upgraded, the connection carries
// the session and nothing the endpoint routes. A refused request gets 403
// in plain words ("this program is not one of mcptray's own tools, so it
// cannot change what mcptray trusts"), which a Client returns as a
// RefusedError (ErrNotTrusted). Elsewhere the key alone holds: macOS has
// no PID namespaces, and its Seatbelt profile keeps a server from reading
// the key; Windows tells no peer credentials on its sockets, and servers
// there run without a sandbox.
//
// The activity record says who decided. A client says what it is
// (Mcptray-Client: Window, CommandLine; DialAs), the endpoint adds what the
// kernel says of the peer, its program and pid (Linux: /proc/PID/exe;
// macOS: the kernel's name for it), and hands it to the service in the
// request's context (service.DecidedBy): "the command line (mcptray, pid
// 4242) let probe run without a sandbox". The tray, in the service's own
// process, says "the tray" itself; the command line running the service in
// its own process (no mcptray runs) says it with Self, and needs no key.
//
// It also opens an app's MCP session with the gateway for mcptray stdio
// (mcpstream.go): the connection is upgraded to a stream, and on Unix the
// bridge hands its stdin and stdout over it (SCM_RIGHTS), so the running
// mcptray reads and writes the app's pipes itself.
//
// Endpoint serves the running mcptray's API (core/service's API, which the
// service implements), plus what only the tray's process can do, such as
// opening the window, each request a route of one table (routes.go);
// Client speaks to it and implements the same API, so a front end holds
// either. Each of the three streams (the change notices, the window's
// focus requests, the servers' questions) is served and followed the same
// way (stream.go). Nothing here logs a request body: sign-in settings may
// hold secrets.
package control
