package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Unpack writes the bundle's files into dir, read-only (a file that was
// executable stays so, as does the program a binary bundle runs), and
// replaces whatever dir held only once every file is written: a failed
// unpack leaves an older version in place. The folder's parent is made
// if need be.
func (b *Bundle) Unpack(dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("making the folder for the bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return fmt.Errorf("unpacking the bundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := b.write(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("unpacking the bundle: %w", err)
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing the bundle's older version: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("unpacking the bundle: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("removing the bundle's older version: %w", err)
		}
	}
	return nil
}

// write writes every file into dir, through an os.Root so that nothing
// can land outside it whatever the names said (they were checked when the
// bundle was opened).
func (b *Bundle) write(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("unpacking the bundle: %w", err)
	}
	defer root.Close()
	runs := b.ownPrograms()
	for _, f := range b.files {
		name := strings.TrimSuffix(f.Name, "/")
		if f.Mode().IsDir() || strings.HasSuffix(f.Name, "/") {
			if err := root.MkdirAll(name, 0o755); err != nil {
				return fmt.Errorf("unpacking %s: %w", name, err)
			}
			continue
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("unpacking %s: %w", name, err)
			}
		}
		mode := fs.FileMode(0o444)
		if f.Mode()&0o111 != 0 || runs[name] {
			mode = 0o555
		}
		out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("unpacking %s: %w", name, err)
		}
		err = copyEntry(out, f)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Chmod(name, mode)
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return err
			}
			return fmt.Errorf("unpacking %s: %w", name, err)
		}
	}
	return nil
}

// ownPrograms are the bundle's files that it runs as programs: a binary
// bundle's entry point, and a command given as a path in the bundle.
func (b *Bundle) ownPrograms() map[string]bool {
	out := map[string]bool{}
	if b.Manifest.Server.Type == "binary" && b.Manifest.Server.EntryPoint != "" {
		out[path.Clean(b.Manifest.Server.EntryPoint)] = true
	}
	cmds := []string{b.Manifest.Server.MCPConfig.Command}
	for _, o := range b.Manifest.Server.MCPConfig.PlatformOverrides {
		cmds = append(cmds, o.Command)
	}
	for _, c := range cmds {
		c = strings.TrimPrefix(c, "${__dirname}/")
		if c != "" && !strings.Contains(c, "${") && strings.Contains(c, "/") && !path.IsAbs(c) {
			out[path.Clean(c)] = true
		}
	}
	return out
}
