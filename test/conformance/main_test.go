//go:build unix

package conformance

import (
	"flag"
	"os"
	"testing"

	"github.com/mcptray/mcptray/test/e2e"
)

// scenariosAtOnce is how many scenarios run side by side unless -parallel
// says otherwise. A scenario is mostly Node starting, twice, and waiting
// on its own server: with go test's default (one a core), the two suites
// took 98 s here; four at a time, 70 s, with both cores busy.
const scenariosAtOnce = "4"

// TestMain lets four scenarios run at once, and removes the mcptray that
// e2e.Binary built, once for every test.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", scenariosAtOnce); err != nil {
			panic(err)
		}
	}
	os.Exit(e2e.Main(m))
}
