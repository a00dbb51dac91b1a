package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// What a server may change (Policy.Write) is where it may plant a link:
// a symlink where mcptray or its launcher expects a folder (its tmp, a
// cache, a folder named on its command line, its project's .env) that
// leads out, to ~/.ssh say. Whatever is done in such a place for the
// server, by mcptray or by the launcher before Landlock holds, is done
// beneath the outermost of those folders that holds it, through no link
// that leads out of it (the package doc lists each).

// ErrLinkOut is why mcptray does not follow a path: a link in a folder the
// server may change leads it out of that folder.
var ErrLinkOut = errors.New("a link in a folder the server may change leads out of it")

// anchorIn is the outermost folder of writable that holds path and is
// not path itself, and path relative to it; "", "" when none does:
// nothing above path is the server's to change, and path is used as it
// is.
func anchorIn(writable []string, path string) (root, rel string) {
	path = filepath.Clean(path)
	for _, w := range writable {
		w = filepath.Clean(w)
		if w == path || !filepath.IsAbs(w) || !within(w, path) {
			continue
		}
		if root == "" || len(w) < len(root) {
			root = w
		}
	}
	if root == "" {
		return "", ""
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return "", ""
	}
	return root, rel
}

// inWritable reports whether path lies in (or is beneath) a folder of
// writable other than itself.
func inWritable(writable []string, path string) bool {
	root, _ := anchorIn(writable, path)
	return root != ""
}

// Open opens the file at path for mcptray to read, for the server p is
// for (its project's env file, say): beneath the outermost folder p lets
// the server write that holds it, through no link that leads out of it,
// and only a regular file, so that a server cannot make mcptray read
// another file in its place, nor wait for ever on a pipe.
func (p Policy) Open(path string) (*os.File, error) {
	var f *os.File
	var err error
	if root, rel := anchorIn(p.beneath(), path); root != "" {
		var r *os.Root
		if r, err = os.OpenRoot(root); err != nil {
			return nil, err
		}
		defer r.Close()
		f, err = r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			err = &fs.PathError{Op: "open", Path: path, Err: ErrLinkOut}
		}
	} else {
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: errors.New("not a regular file")}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// mkdirBeneath makes the folder d (and what it needs above it) beneath
// the outermost folder of writable that holds it, through no link that
// leads out of it.
func mkdirBeneath(writable []string, d string) error {
	root, rel := anchorIn(writable, d)
	if root == "" {
		return os.MkdirAll(d, 0o700)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(rel, 0o700); err != nil {
		return fmt.Errorf("making %s: %w", d, err)
	}
	return nil
}
