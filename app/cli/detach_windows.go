//go:build windows

package cli

import "syscall"

// detached starts mcptray in a process group of its own, without a console,
// so that the app's end does not end it.
func detached() *syscall.SysProcAttr {
	const createNewProcessGroup, detachedProcess = 0x00000200, 0x00000008
	return &syscall.SysProcAttr{CreationFlags: createNewProcessGroup | detachedProcess}
}
