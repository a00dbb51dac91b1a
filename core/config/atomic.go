package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFileAtomic replaces path with data so that a reader, or a crash, sees
// the old file or the new one and never half of either. The file it replaces
// is kept as path+".bak".
//
// It writes a temporary file in the same folder, syncs it, and renames it
// over path (os.Rename replaces atomically on Unix, and through
// MoveFileEx(REPLACE_EXISTING) on Windows). google/renameio does the same
// but does not build on Windows, and keeps no backup.
//
// When path already holds data, nothing is written: a backup of a file
// that did not change would replace the one of the file before.
//
// When path is a symbolic link (a dotfile kept in a dotfiles repository),
// the file it points to is replaced and the link stays.
//
// Its errors name path, never the temporary files, which a person has never
// heard of: "/x/config.json cannot be written: permission denied".
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			// Nothing to change: the file, and the backup of what was
			// there before, stay as they are.
			return nil
		}
		if err := writeAndRename(path+".bak", old, perm); err != nil {
			return fmt.Errorf("%s cannot be written: its backup %s cannot be made: %w", path, filepath.Base(path)+".bak", osReason(err))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s before replacing it: %w", path, err)
	}
	if err := writeAndRename(path, data, perm); err != nil {
		return fmt.Errorf("%s cannot be written: %w", path, osReason(err))
	}
	return nil
}

// ReplaceFile replaces path with data as WriteFileAtomic does, but keeps no
// backup: for mcptray's own state and caches, which a person never edits
// and which are made anew when lost.
func ReplaceFile(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := writeAndRename(path, data, perm); err != nil {
		return fmt.Errorf("%s cannot be written: %w", path, osReason(err))
	}
	return nil
}

// osReason is the OS's reason inside a file operation's error ("permission
// denied"), without the operation and the path it was on.
func osReason(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

func writeAndRename(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable; Windows has no directory handles to sync,
// and a failure here loses durability, not data, so it is not reported.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
