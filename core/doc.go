// Package core is everything in mcptray that is not a pixel, in
// sub-packages: server configuration (config), connections (conn, transport,
// tools), sign-in (oauth, secret), the service that composes them (service),
// the gateway that serves every server's tools to the person's AI apps
// (gateway), what the person saw of those tools, held until a change is
// accepted (pins), the guard on what flows between tools within an app's
// session (guard), the local control endpoint that the window, the command
// line and mcptray stdio reach it through (control), the record of what the
// apps did through the gateway (activity), what a local server may do
// (sandbox) and the proxy its network goes through (egress), the MCP
// Bundles a server can be installed from (bundle), and one running
// mcptray made of them (instance).
//
// core must never import Fyne, a tray library or any other front-end package;
// a test in this package checks that with `go list -deps`, and which core
// packages each front end may import. Front ends (app/window, app/cli,
// app/host, tray/) reach the running mcptray through the one API
// core/service declares (api.go), which the service and the control
// endpoint's client both are. core/service composes the engine;
// core/instance is the only place that starts a running mcptray around it.
package core
