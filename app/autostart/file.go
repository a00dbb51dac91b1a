package autostart

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// file is an entry kept in a file of its own: XDG autostart and launchd.
type file struct{ path string }

func (f file) read() (string, bool, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

func (f file) write(entry string) error {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A temporary file renamed over the entry: the session never reads half
	// of one. (config.WriteFileAtomic would leave a .bak beside it, in a
	// folder the desktop reads.)
	tmp, err := os.CreateTemp(dir, ".mcptray-autostart-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(entry); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path)
}

func (f file) remove() error {
	err := os.Remove(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (f file) String() string { return f.path }
