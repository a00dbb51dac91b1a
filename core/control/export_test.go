package control

import "testing"

// What the tests outside the package (package control_test, which may
// import core/instance: the tests that need a whole running mcptray)
// share with those inside it.

// TempPaths is testPaths: mcptray's paths in a temporary home.
var TempPaths = testPaths

// Within is within: what ch brings, waited for at most 10 s.
func Within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	return within(t, ch, what)
}
