//go:build !linux

package control

// keep does nothing where no cleaner honours the sticky bit: macOS and the
// BSDs refuse it on a file to anyone but root, and Windows has no such bit.
func keep(string) {}
