//go:build linux && cgo

package main

// launch_linux.c does the launcher's work before Go's runtime starts; the
// import below only brings it into the program.

import "C"
