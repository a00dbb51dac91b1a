package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// runUserBase is where systemd makes each logged-in person's runtime
// folder, the one a desktop session's XDG_RUNTIME_DIR names.
const runUserBase = "/run/user"

// RunUserDir is the per-user runtime folder that systemd makes at login,
// /run/user/UID, when it is there as a folder (not a link) of this
// person's own that no one else may open; "" otherwise. Where
// XDG_RUNTIME_DIR is not set (an app started mcptray with a bare
// environment) it is where the desktop session's mcptray put its control
// socket, and its session bus.
func RunUserDir() string { return runUserDir(runUserBase, os.Getuid()) }

// runUserDir is RunUserDir under base, for uid.
func runUserDir(base string, uid int) string {
	if uid < 0 { // Windows has no user ids
		return ""
	}
	dir := filepath.Join(base, strconv.Itoa(uid))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedBy(fi, uid) {
		return ""
	}
	return dir
}

// getconfDir is the folder getconf printed (out), or "" when it printed
// no absolute path.
func getconfDir(out []byte) string {
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) || strings.ContainsAny(dir, "\n\x00") {
		return ""
	}
	return filepath.Clean(dir)
}
