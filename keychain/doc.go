// Package keychain stores mcptray's secrets (OAuth tokens, registered OAuth
// clients) in the operating system's keychain through
// github.com/zalando/go-keyring: the macOS Keychain, Windows Credential
// Manager, or the Secret Service on Linux.
//
// It implements the secret-store interface that core defines. It never falls
// back to a file: when no keychain is available it says so in plain words.
package keychain
