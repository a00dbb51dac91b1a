// Package core is everything in mcptray that is not a pixel, in
// sub-packages: server configuration (config), connections (conn, transport,
// tools), sign-in (oauth, secret), the one running service that wires them
// together (service) and its local control endpoint (control). A gateway
// that serves every server's tools to other apps is planned.
//
// core must never import Fyne, a tray library or any other front-end package;
// a test in this package checks that with `go list -deps`. Front ends (app/,
// app/cli, app/host, tray/) reach core through small interfaces they define
// themselves, and only core/service wires core together.
package core
