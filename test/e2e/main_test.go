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

// runtimeDir is a runtime folder for t's mcptray, removed when t ends, so
// that its control folder does not stay behind in the system's temporary
// folder. Its path is short: a socket's has at most 107 bytes, and
// t.TempDir's holds the test's name.
func runtimeDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "run")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
