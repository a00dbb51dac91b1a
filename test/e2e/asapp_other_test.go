//go:build !linux

package e2e

import (
	"fmt"
	"os"
)

const asAppArg = "as-app"

// asAppMain needs Linux's mount namespaces.
func asAppMain([]string) int {
	fmt.Fprintln(os.Stderr, "as-app runs only on Linux")
	return 2
}
