//go:build !linux

package control

// kept is 0 where no cleaner honours the sticky bit: macOS and the BSDs
// refuse it on a file to anyone but root, and Windows has no such bit.
const kept = 0
