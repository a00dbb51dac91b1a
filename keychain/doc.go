// Package keychain stores mcptray's secrets (OAuth tokens, registered OAuth
// clients) in the operating system's keychain through
// github.com/zalando/go-keyring: the macOS Keychain, Windows Credential
// Manager, or the Secret Service on Linux.
//
// It implements the secret-store interface that core defines. Each secret is
// an item under the service given to New ("mcptray") and the account
// "<server>/<kind>"; values too long for one item (Windows takes 2,560 bytes)
// are split over several, written so that a reader never sees half of one
// (format.go says how).
//
// It never falls back to a file or to memory: when no keychain is available
// it returns a *secret.UnavailableError that says so in plain words, and what
// to do. No error it returns quotes a secret.
package keychain
