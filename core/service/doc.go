// Package service is mcptray's one composition root: the running mcptray
// at the centre of everything a person sees.
//
// A Service owns the config loader and its watch, the person's approvals,
// the connection manager, the one sign-in manager and the built-in server,
// and the holding policy on what the person saw of each server's tools and
// prompts (core/pins' Policy): it tells the policy every list a server
// gives, and a Snapshot offers a server's changed tools only once the
// person accepted them (pins.go).
// The tray runs it in its own process (mcptray), mcptray serve runs it with
// no face at all, and every command-line command runs it in-process when no
// mcptray is running. The window and the command line reach a running one
// through the control endpoint (core/control); nothing else wires core
// together.
//
// Front ends read a Snapshot — every server with where it came from, its
// state, the reason in plain words and the action that fixes it — and take
// a new one whenever Subscribe says something changed. Actions (Approve,
// SignIn, PauseAll…) are methods; the rules they follow (who may approve
// what, when a removed server's sign-in is forgotten) live here so that the
// window, the tray and the command line share them.
//
// service never imports a front end and never puts a token, a header value
// or an environment value into a Snapshot or a log line.
package service
