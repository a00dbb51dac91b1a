//go:build !darwin

package config

// darwinUserTempDir is macOS's per-user temporary folder; there is none
// here.
func darwinUserTempDir() string { return "" }
