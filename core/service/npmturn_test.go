package service

import (
	"sync"
	"testing"
)

// npmTurn is held by the tests that install packages with npm (from the
// npm registry or a local one) while they run. They run beside the other
// tests, whose waiting they fill, but one at a time: an install takes
// both cores, and several at once under load ran past their servers'
// connect timeouts.
var npmTurn sync.Mutex

// takeNpmTurn runs t beside the other tests, waits for its turn to
// install with npm and gives the turn back when t ends.
func takeNpmTurn(t *testing.T) {
	t.Parallel()
	npmTurn.Lock()
	t.Cleanup(npmTurn.Unlock)
}
