package config

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// dirNames lists a folder but for the empty lock files that edits leave
// beside the files they lock (lock.go).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing []string // earlier contents, oldest first
		perm     fs.FileMode
	}{
		{"new file in new folders", nil, 0o600},
		{"replaces a file", []string{"one"}, 0o600},
		{"keeps one backup of the latest", []string{"one", "two", "three"}, 0o644},
		{"permission kept as asked", []string{"one"}, 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "a", "b")
			path := filepath.Join(dir, "config.json")
			for _, c := range tt.existing {
				if err := WriteFileAtomic(path, []byte(c), tt.perm); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFileAtomic(path, []byte("final"), tt.perm); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != "final" {
				t.Errorf("content %q", got)
			}
			want := []string{"config.json"}
			if len(tt.existing) > 0 {
				want = append(want, "config.json.bak")
				if got := readFile(t, path+".bak"); got != tt.existing[len(tt.existing)-1] {
					t.Errorf("backup %q, want the previous content %q", got, tt.existing[len(tt.existing)-1])
				}
			}
			if got := dirNames(t, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("folder holds %q, want %q (no temporary files, one backup)", got, want)
			}
			for _, f := range want {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != tt.perm {
					t.Errorf("%s: mode %v, %v; want %v", f, st.Mode().Perm(), err, tt.perm)
				}
			}
		})
	}
}

// TestWriteFileAtomicReaders: a reader sees a whole old or a whole new
// file, never a part.
func TestWriteFileAtomicReaders(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.json")
	versions := make([][]byte, 20)
	for i := range versions {
		versions[i] = bytes.Repeat([]byte{byte('a' + i)}, 256<<10)
	}
	if err := WriteFileAtomic(path, versions[0], 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	var mu sync.Mutex
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				b, err := os.ReadFile(path)
				if err != nil || !slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, b) }) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("read %d bytes, %v", len(b), err))
					mu.Unlock()
				}
			}
		})
	}
	for _, v := range versions[1:] {
		if err := WriteFileAtomic(path, v, 0o600); err != nil {
			t.Error(err)
		}
	}
	close(done)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("readers saw %d partial files, first: %s", len(bad), bad[0])
	}
}

func TestWriteFileAtomicFails(t *testing.T) {
	t.Parallel()
	t.Run("target is a folder", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(path, []byte("x"), 0o600); err == nil {
			t.Error("writing over a folder succeeded")
		}
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			t.Error("the folder was replaced")
		}
		if got := dirNames(t, filepath.Dir(path)); !reflect.DeepEqual(got, []string{"config.json"}) {
			t.Errorf("left behind %q", got)
		}
	})
	t.Run("backup cannot be made", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "config.json")
		writeFile(t, path, "old")
		writeFile(t, filepath.Join(path+".bak", "in-the-way"), "x") // a folder where the backup goes
		err := WriteFileAtomic(path, []byte("new"), 0o600)
		if err == nil {
			t.Fatal("writing with a folder in the backup's place succeeded")
		}
		if msg := err.Error(); !strings.HasPrefix(msg, path+" cannot be written: its backup config.json.bak cannot be made: ") || strings.Contains(msg, ".tmp-") {
			t.Errorf("error %q; want it to name %s and its backup, and no temporary file", msg, path)
		}
		if got := readFile(t, path); got != "old" {
			t.Errorf("file now %q", got)
		}
	})
	t.Run("parent is a file", func(t *testing.T) {
		t.Parallel()
		parent := filepath.Join(t.TempDir(), "file")
		writeFile(t, parent, "x")
		if err := WriteFileAtomic(filepath.Join(parent, "config.json"), []byte("x"), 0o600); err == nil {
			t.Error("writing under a file succeeded")
		}
	})
	t.Run("folder not writable", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() == 0 {
			t.Skip("root can write in every folder")
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "config.json")
		writeFile(t, path, "old")
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		err := WriteFileAtomic(path, []byte("new"), 0o600)
		if err == nil {
			t.Error("writing in a read-only folder succeeded")
		} else if msg := err.Error(); !strings.HasPrefix(msg, path+" cannot be written") || strings.Contains(msg, ".tmp-") {
			t.Errorf("error %q; want it to say %s cannot be written, naming no temporary file", msg, path)
		}
		if got := readFile(t, path); got != "old" {
			t.Errorf("file now %q", got)
		}
		if got := dirNames(t, dir); !reflect.DeepEqual(got, []string{"config.json"}) {
			t.Errorf("left behind %q", got)
		}
	})
}

func TestWriteFileAtomicKeepsSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".claude.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := WriteFileAtomic(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target = %q", b)
	}
	if b, _ := os.ReadFile(target + ".bak"); string(b) != "old" {
		t.Errorf("backup = %q", b)
	}
}

// TestReplaceFile: mcptray's own state is replaced whole, in a folder it
// makes, and leaves no backup beside it.
func TestReplaceFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "apps-seen.json")
	for _, content := range []string{"first\n", "second\n"} {
		if err := ReplaceFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("after writing %q: %q, %v", content, b, err)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder holds %v, want only the file", entries)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

// TestWriteFileAtomicUnchanged: writing what a file already holds leaves
// the file and its backup of the version before as they were.
func TestWriteFileAtomicUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	for _, v := range []string{"one\n", "two\n"} {
		if err := WriteFileAtomic(path, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the file was replaced although its content did not change")
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != "one\n" {
		t.Errorf("the backup holds %q, want the version before, %q", bak, "one\n")
	}
}
