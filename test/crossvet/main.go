// Command crossvet runs go vet's checks on mcptray's packages as they build
// for another system, GOOS and CGO_ENABLED taken from the environment:
//
//	go build -o crossvet ./test/crossvet
//	CGO_ENABLED=0 GOOS=darwin ./crossvet ./core/...
//
// scripts/test.sh runs it for macOS and Windows, so that a mistake in a file
// behind a build tag shows on Linux too. It does what `GOOS=darwin go vet`
// does, but type-checks every package from its source (golang.org/x/tools'
// multichecker) instead of compiling the standard library and every
// dependency for each system: on a fresh machine that takes a minute instead
// of three.
package main

import (
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/multichecker"
	"golang.org/x/tools/go/analysis/suite/vet"
)

// newerThanGoVet are x/tools' vet analyzers that the go vet of the Go this
// module builds with does not run yet: leaving them out keeps the two vets
// of scripts/test.sh saying the same things.
var newerThanGoVet = []string{"scannererr", "sqlrowserr"}

func main() {
	multichecker.Main(slices.DeleteFunc(slices.Clone(vet.Suite), func(a *analysis.Analyzer) bool {
		return slices.Contains(newerThanGoVet, a.Name)
	})...)
}
