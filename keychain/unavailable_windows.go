package keychain

import (
	"errors"
	"syscall"

	"github.com/mcptray/mcptray/core/secret"
)

// errorNoSuchLogonSession is what Credential Manager answers where there is
// no interactive logon session: under a service account, or over SSH.
const errorNoSuchLogonSession syscall.Errno = 1312

// On Windows go-keyring calls Credential Manager; nothing to check first.
func checkBackend() error { return nil }

func unavailable(err error) *secret.UnavailableError {
	if errors.Is(err, errorNoSuchLogonSession) {
		return &secret.UnavailableError{
			Reason: "Windows Credential Manager is not available in this session",
			Fix:    "run mcptray in your own signed-in Windows session, not as a service or over SSH",
			Err:    err,
		}
	}
	return nil
}

// vanished is for the Secret Service, which can lose an item between
// finding and reading it.
func vanished(error) bool { return false }
