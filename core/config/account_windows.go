package config

import (
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/windows"
)

// Account names the person this process runs as, for the names of
// per-person things: the account's security identifier (S-1-5-21-…), as
// os.Getuid is -1 on Windows. Where the process's token cannot be read (it
// can always be read by its own process) it is the user name, so that two
// people still get two names.
func Account() string { return account() }

var account = sync.OnceValue(func() string {
	if u, err := windows.GetCurrentProcessToken().GetTokenUser(); err == nil {
		return u.User.Sid.String()
	}
	name := os.Getenv("USERNAME")
	if name == "" {
		name = "unknown"
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`\/:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
})
