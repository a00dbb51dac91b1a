package control

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestKeptFromCleaners: the instance lock and the socket carry the sticky
// bit, and the real systemd-tmpfiles, told to clean their folder of all
// that has not changed for an hour, leaves them, two days old, while it
// removes an old file beside them.
func TestKeptFromCleaners(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ours := []string{lockPath(p), SocketPath(p)}
	for _, f := range ours {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600 and the sticky bit", filepath.Base(f), fi.Mode())
		}
	}

	tmpfiles, err := exec.LookPath("systemd-tmpfiles")
	if err != nil {
		t.Skip("systemd-tmpfiles is not installed (Debian's systemd package has it)")
	}
	other := filepath.Join(p.ControlDir(), "left-behind")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, f := range append(ours, other) {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// m: ages by the time of the last change alone, as the inode's own
	// change time is now.
	conf := filepath.Join(t.TempDir(), "clean.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "e %s - - - m:1h\n", p.ControlDir()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tmpfiles, "--clean", conf).CombinedOutput(); err != nil {
		t.Fatalf("systemd-tmpfiles --clean: %v\n%s", err, out)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("systemd-tmpfiles left the old file beside them (%v): the test cleans nothing", err)
	}
	for _, f := range ours {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("systemd-tmpfiles removed %s: %v", filepath.Base(f), err)
		}
	}
}
