//go:build !unix

package instance

// alive cannot tell on this system; the tests that ask run on Unix.
func alive(int) bool { return false }
