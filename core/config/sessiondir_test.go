package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRunUserDir: /run/user/UID is taken only as systemd makes it, a
// folder of the person's own that no one else may open. A folder another
// user made, one open to others, a link to elsewhere or a file could be
// where another user waits for mcptray's control socket.
func TestRunUserDir(t *testing.T) {
	t.Parallel()
	uid := os.Getuid()
	mk := func(t *testing.T, base string, id int, mode os.FileMode) string {
		t.Helper()
		dir := filepath.Join(base, strconv.Itoa(id))
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return dir
	}
	t.Run("the person's own", func(t *testing.T) {
		base := t.TempDir()
		dir := mk(t, base, uid, 0o700)
		if got := runUserDir(base, uid); got != dir {
			t.Errorf("runUserDir = %q, want %q", got, dir)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if got := runUserDir(t.TempDir(), uid); got != "" {
			t.Errorf("runUserDir = %q, want none", got)
		}
	})
	t.Run("open to others", func(t *testing.T) {
		base := t.TempDir()
		mk(t, base, uid, 0o755)
		if got := runUserDir(base, uid); got != "" {
			t.Errorf("runUserDir took a folder others may open: %q", got)
		}
	})
	t.Run("another user's", func(t *testing.T) {
		// The folder is this process's user's; it is asked for as
		// another user's, who does not own it.
		base := t.TempDir()
		other := uid + 1
		mk(t, base, other, 0o700)
		if got := runUserDir(base, other); got != "" {
			t.Errorf("runUserDir took a folder user %d does not own: %q", other, got)
		}
	})
	t.Run("a link", func(t *testing.T) {
		base := t.TempDir()
		target := t.TempDir()
		if err := os.Chmod(target, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(base, strconv.Itoa(uid))); err != nil {
			t.Fatal(err)
		}
		if got := runUserDir(base, uid); got != "" {
			t.Errorf("runUserDir followed a link: %q", got)
		}
	})
	t.Run("a file", func(t *testing.T) {
		base := t.TempDir()
		if err := os.WriteFile(filepath.Join(base, strconv.Itoa(uid)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := runUserDir(base, uid); got != "" {
			t.Errorf("runUserDir took a file: %q", got)
		}
	})
}

// TestRuntimeDirWithoutXDGRuntimeDir: mcptray stdio, started by an app
// with only the MCP SDK's six variables, finds the control folder of the
// mcptray that the desktop session started, on Linux through /run/user/UID
// and on macOS through the per-user temporary folder, whatever TMPDIR
// says.
func TestRuntimeDirWithoutXDGRuntimeDir(t *testing.T) {
	t.Parallel()
	sdk := map[string]string{"HOME": "/home/me", "LOGNAME": "me", "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", "TERM": "xterm", "USER": "me"}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range sdk {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	paths := func(goos string, env map[string]string, s sessionFolders) Paths {
		t.Helper()
		p, err := newPaths(goos, mapLookup(env), s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	runUser := sessionFolders{runUser: func() string { return "/run/user/1000" }}
	desktop := paths("linux", with(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}), runUser)
	bare := paths("linux", sdk, runUser)
	if bare.RuntimeDir != "/run/user/1000" || bare.ControlDir() != desktop.ControlDir() {
		t.Errorf("linux, bare environment: control folder %s; the desktop session's is %s", bare.ControlDir(), desktop.ControlDir())
	}
	// XDG_RUNTIME_DIR, when set, wins: a test's own runtime folder.
	if p := paths("linux", with(map[string]string{"XDG_RUNTIME_DIR": "/elsewhere"}), runUser); p.RuntimeDir != "/elsewhere" {
		t.Errorf("linux with XDG_RUNTIME_DIR: RuntimeDir %s", p.RuntimeDir)
	}
	// No /run/user/UID of the person's: the system's temporary folder.
	if p := paths("linux", sdk, sessionFolders{runUser: func() string { return "" }}); p.RuntimeDir != os.TempDir() {
		t.Errorf("linux without /run/user/UID: RuntimeDir %s, want %s", p.RuntimeDir, os.TempDir())
	}

	mac := sessionFolders{darwinTemp: func() string { return "/var/folders/xy/abc/T" }}
	launchd := paths("darwin", with(map[string]string{"TMPDIR": "/var/folders/xy/abc/T/"}), mac)
	for name, env := range map[string]map[string]string{
		"bare":       sdk,
		"own TMPDIR": with(map[string]string{"TMPDIR": "/tmp/app"}),
	} {
		if p := paths("darwin", env, mac); p.ControlDir() != launchd.ControlDir() {
			t.Errorf("darwin, %s environment: control folder %s; the tray's is %s", name, p.ControlDir(), launchd.ControlDir())
		}
	}
	// getconf failed: TMPDIR, or /tmp.
	if p := paths("darwin", with(map[string]string{"TMPDIR": "/var/folders/xy/abc/T/"}), sessionFolders{}); p.RuntimeDir != "/var/folders/xy/abc/T/" {
		t.Errorf("darwin without getconf: RuntimeDir %s", p.RuntimeDir)
	}
	if p := paths("darwin", sdk, sessionFolders{}); p.RuntimeDir != "/tmp" {
		t.Errorf("darwin without getconf or TMPDIR: RuntimeDir %s", p.RuntimeDir)
	}
}

// TestGetconfDir: only an absolute path that getconf printed is taken.
func TestGetconfDir(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		"/var/folders/xy/abc/T/\n": "/var/folders/xy/abc/T",
		"":                         "",
		"\n":                       "",
		"T/\n":                     "",
		"undefined\n":              "",
	} {
		if got := getconfDir([]byte(out)); got != want {
			t.Errorf("getconfDir(%q) = %q, want %q", out, got, want)
		}
	}
}
