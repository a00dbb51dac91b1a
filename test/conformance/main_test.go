//go:build unix

package conformance

import (
	"os"
	"testing"

	"github.com/mcptray/mcptray/test/e2e"
)

// TestMain removes the mcptray that e2e.Binary built, once for every test.
func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
