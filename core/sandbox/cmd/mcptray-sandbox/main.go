// Command mcptray-sandbox is mcptray's sandbox launcher on its own: what
// mcptray sandbox-exec does, in a program that imports nothing else, so that
// starting a server through it costs about a millisecond rather than the
// tens that mcptray's own start takes (Fyne's and other packages'
// initialisation runs before any command). mcptray uses it when it sits
// next to mcptray's program, and its own hidden mode otherwise. It is not
// a command for people.
package main

import (
	"os"

	"github.com/mcptray/mcptray/core/sandbox"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == sandbox.LauncherArg {
		args = args[1:]
	}
	os.Exit(sandbox.Launch(args, os.Stderr))
}
