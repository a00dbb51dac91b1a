package keychain

import (
	"errors"
	"os/exec"

	"github.com/mcptray/mcptray/core/secret"
)

// On macOS go-keyring runs /usr/bin/security; nothing to check first.
func checkBackend() error { return nil }

// unavailable reads the security command's exit status: the low byte of the
// Security framework's OSStatus.
func unavailable(err error) *secret.UnavailableError {
	u := func(reason, fix string) *secret.UnavailableError {
		return &secret.UnavailableError{Reason: reason, Fix: fix, Err: err}
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return u("macOS's security tool could not be run",
			"run mcptray as yourself, in your macOS login session")
	}
	var xe *exec.ExitError
	if !errors.As(err, &xe) {
		return nil
	}
	switch xe.ExitCode() {
	case 36: // errSecInteractionNotAllowed
		return u("your login keychain is locked, and macOS cannot ask you to unlock it here",
			"unlock your login keychain in Keychain Access, or run mcptray in your desktop session rather than over SSH")
	case 37, 50: // errSecNoDefaultKeychain, errSecNoSuchKeychain
		return u("there is no default keychain",
			"open Keychain Access and make your login keychain the default")
	case 51: // errSecAuthFailed
		return u("the keychain password was not accepted",
			"unlock your login keychain in Keychain Access")
	case 128: // errSecUserCanceled
		return u("the request to use the keychain was declined",
			"allow mcptray when macOS asks to use the keychain")
	}
	return nil
}

// vanished is for the Secret Service, which can lose an item between
// finding and reading it.
func vanished(error) bool { return false }
