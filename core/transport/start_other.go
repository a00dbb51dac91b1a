//go:build !linux

package transport

import "os/exec"

// startProcess starts cmd. On Windows the job object startGroup puts the
// child in ends with mcptray (its handle closes, and the job is set to kill
// on close); on other Unix systems there is no way to tie a child's life to
// mcptray's (Linux's is in start_linux.go), and a server outlives a killed
// mcptray until it notices its stdin has ended.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }
