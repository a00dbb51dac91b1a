//go:build !windows

package config

import (
	"os"
	"strconv"
)

// Account names the person this process runs as, for the names of
// per-person things: the user id.
func Account() string { return strconv.Itoa(os.Getuid()) }
