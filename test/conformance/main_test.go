//go:build unix

package conformance

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/mcptray/mcptray/test/e2e"
)

// scenariosAtOnce is how many scenarios run side by side unless -parallel
// says otherwise. A scenario is mostly Node starting, twice, and waiting
// on its own server: with go test's default (one a core), the two suites
// took 98 s here; four at a time, 70 s, with both cores busy.
const scenariosAtOnce = "4"

// nodeCache is the folder where Node keeps the suite's compiled code
// between its runs (NODE_COMPILE_CACHE), made by TestMain. Every scenario
// starts the suite anew, and compiling it and its dependencies was most of
// a scenario's time on the processor; with the cache, only the first runs
// compile.
var nodeCache string

// TestMain lets four scenarios run at once, gives the runs of Node one
// compile cache, and removes it and the mcptray that e2e.Binary built, once
// for every test.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", scenariosAtOnce); err != nil {
			panic(err)
		}
	}
	dir, err := os.MkdirTemp("", "mcptray-node-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, "making a folder for Node's compile cache:", err)
		os.Exit(1)
	}
	nodeCache = dir
	code := e2e.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
