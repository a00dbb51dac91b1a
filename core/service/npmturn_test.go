package service

import (
	"sync"
	"testing"
)

// The tests that install packages with npm run beside the other tests,
// whose waiting they fill, in two lanes of one test each: those that
// install from the npm registry take turns here (the reference servers,
// three installs of a hundred packages at once, take both cores: two such
// tests at once under load ran past their servers' connect timeouts), and
// those that publish to a registry of their own take turns at it
// (npmtest.Start), beside them. Those wait as long as a tree takes to
// resolve and install on a busy computer (waitLong).

// npmTurn is held by the tests that install from the npm registry while
// they run.
var npmTurn sync.Mutex

// takeNpmTurn runs t beside the other tests, waits for its turn to
// install from the npm registry and gives the turn back when t ends.
func takeNpmTurn(t *testing.T) {
	t.Parallel()
	npmTurn.Lock()
	t.Cleanup(npmTurn.Unlock)
}
