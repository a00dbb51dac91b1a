//go:build unix && !linux

package transport

// isForeignZombie cannot tell a zombie here; processGone relies on kill.
func isForeignZombie(int) bool { return false }
