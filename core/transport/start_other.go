//go:build !linux && !windows

package transport

import "os/exec"

// startProcess starts cmd. On these Unix systems there is no way to tie a
// child's life to mcptray's (Linux's is in start_linux.go, Windows' in
// start_windows.go), and a server outlives a killed mcptray until it
// notices its stdin has ended.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }

// forgetStarted has nothing to forget: startProcess keeps nothing here.
func forgetStarted(int) {}
