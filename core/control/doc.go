// Package control is the local endpoint through which the window and the
// command line reach the running mcptray: HTTP with JSON over a Unix socket
// that only the person who started mcptray can open.
//
// The socket lives in a folder of its own under the per-user runtime folder
// (mode 0700), is itself mode 0600, and every connection's peer user id is
// checked before a byte is read. Next to it an instance lock (a file lock
// the kernel drops when the process dies) marks the running instance, so a
// socket left behind by a killed mcptray is recognised and replaced.
//
// It also opens an app's MCP session with the gateway for mcptray stdio
// (mcpstream.go): the connection is upgraded to a stream, and on Unix the
// bridge hands its stdin and stdout over it (SCM_RIGHTS), so the running
// mcptray reads and writes the app's pipes itself.
//
// Endpoint serves a Backend (the service, plus what only the tray's process
// can do, such as opening the window); Client speaks to it and offers the
// same methods as core/service's Service, so a front end holds either.
// Nothing here logs a request body: sign-in settings may hold secrets.
package control
