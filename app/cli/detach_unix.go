//go:build unix

package cli

import "syscall"

// detached makes a started mcptray the leader of a session of its own, so
// that the app's end (and its terminal's hang-up) does not end it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
