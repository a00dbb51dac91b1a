package keychain

import (
	"errors"
	"runtime"

	"github.com/mcptray/mcptray/core/secret"
	"github.com/zalando/go-keyring"
)

// backendErr turns an error from go-keyring into one of the secret
// package's: secret.ErrNotFound, a *secret.UnavailableError when the error
// means that there is no keychain to use, or else err itself. The
// per-platform unavailable function decides the middle case.
func backendErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return secret.ErrNotFound
	case errors.Is(err, keyring.ErrUnsupportedPlatform):
		return &secret.UnavailableError{
			Reason: "mcptray has no keychain support on " + runtime.GOOS,
			Fix:    "use mcptray on Linux, macOS or Windows",
			Err:    err,
		}
	}
	if u := unavailable(err); u != nil {
		return u
	}
	return err
}
