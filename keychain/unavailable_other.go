//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd || darwin || windows)

package keychain

import "github.com/mcptray/mcptray/core/secret"

// Here go-keyring has no keychain: every call fails with
// ErrUnsupportedPlatform, which backendErr reports.
func checkBackend() error { return nil }

func unavailable(error) *secret.UnavailableError { return nil }

// vanished is for the Secret Service, which can lose an item between
// finding and reading it.
func vanished(error) bool { return false }
