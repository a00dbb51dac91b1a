//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Protection says how well p protects a server on this system.
func Protection(p Policy) Level {
	switch runtime.GOOS {
	case "darwin":
		if p.None {
			return Level{Words: wordsPodman}
		}
		return Level{Files: true, Words: wordsMac}
	case "windows":
		return Level{Words: wordsWindows}
	}
	return Level{Words: "not protected: mcptray has no sandbox on " + runtime.GOOS}
}

func execLaunched(Policy, launchPlan, string, []string, []string) error {
	return errLinuxOnly
}

func runInit(Policy, string, launchPlan, []string) (int, error) { return 126, errLinuxOnly }

func probeIsolation() error { return errLinuxOnly }

var errLinuxOnly = errors.New("its launcher runs only on Linux")
