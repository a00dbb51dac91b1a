package config

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchEndsWithRemovedFolder: a project folder removed from the list,
// and the config loaded at once by whoever wrote it (as the service does),
// is no longer watched: the watcher follows the newest load's folders
// even when it finds nothing more to read.
func TestWatchEndsWithRemovedFolder(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	dir := h.folder(t, "app")
	h.userFile(t, "", dir)
	l := h.loader(nil)
	skipped := make(chan struct{}, 10)
	l.Skipped = func() { skipped <- struct{}{} }
	updates, _ := watching(t, l)
	if !watched(t, dir) {
		t.Fatal("the project folder is not watched to begin with")
	}
	err := ModifyUserFile(h.paths.UserFile(), func(u *UserFile) error {
		u.Folders = nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if set := l.Load(); len(set.Folders) != 0 {
		t.Fatalf("folders %q", set.Folders)
	}
	select {
	case <-skipped:
	case <-updates:
		// A slow machine: the watcher loaded the write itself first.
	case <-time.After(updateDeadline):
		t.Fatal("the watcher never looked at the write")
	}
	if watched(t, dir) {
		t.Error("the removed folder is still watched")
	}
}

// watched reports whether a watch of this process's inotify instances is
// on dir, by its inode, as /proc tells.
func watched(t *testing.T, dir string) bool {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	ino := "ino:" + strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 16)
	infos, err := filepath.Glob("/proc/self/fdinfo/*")
	if err != nil || len(infos) == 0 {
		t.Skip("no /proc/self/fdinfo here")
	}
	for _, p := range infos {
		f, err := os.Open(p)
		if err != nil {
			continue // an fd closed since
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "inotify ") && slices.Contains(strings.Fields(line), ino) {
				f.Close()
				return true
			}
		}
		f.Close()
	}
	return false
}
