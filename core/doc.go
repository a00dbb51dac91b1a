// Package core is everything in mcptray that is not a pixel: server
// configuration, connections, sign-in and the gateway, in sub-packages.
//
// core must never import Fyne, a tray library or any other front-end package;
// a test in this package checks that with `go list -deps`. Front ends (app/,
// tray/) reach core through small interfaces they define themselves.
package core
