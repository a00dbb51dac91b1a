//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package transport

// watchExit has no way, on this system, to learn that a child exited without
// reaping it, and reaping is Stdio.stop's. The channel never closes: a server
// that dies on its own is noticed only when it is stopped.
func watchExit(int) (<-chan struct{}, error) {
	return make(chan struct{}), nil
}

// groupHasLiving cannot tell a zombie from a running process here.
func groupHasLiving(int) bool { return true }
