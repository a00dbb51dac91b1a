package e2e

import (
	"os"
	"testing"
)

// TestMain runs the tests or, run as "TEST-BINARY as-app FOLDER -- PROGRAM
// ARGS…", starts PROGRAM as an app would, with the test's own /run/user
// (asApp, bareenv_linux_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == asAppArg {
		os.Exit(asAppMain(os.Args[2:]))
	}
	os.Exit(Main(m))
}
