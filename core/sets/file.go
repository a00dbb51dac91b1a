package sets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/config"
)

// FileName is the sets' file in mcptray's config folder.
const FileName = "sets.json"

// maxFile bounds what is read of the file.
const maxFile = 1 << 20

// Path is the sets' file for p.
func Path(p config.Paths) string { return filepath.Join(p.Dir(), FileName) }

// Read reads the choices kept at path; a missing file is no set, every
// app getting everything. A file that is not plain, too large, or not
// what this package writes is an error in plain words.
func Read(path string) (Choices, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Choices{Version: version}, nil
	}
	if err != nil {
		return Choices{}, fmt.Errorf("reading the sets: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return Choices{}, fmt.Errorf("reading the sets: %s is not a plain file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return Choices{}, fmt.Errorf("reading the sets: %w", err)
	}
	if len(b) > maxFile {
		return Choices{}, fmt.Errorf("reading the sets: %s is larger than %d KiB", path, maxFile>>10)
	}
	var c Choices
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Choices{}, fmt.Errorf("reading the sets: %s is not as mcptray writes it: %w", path, err)
	}
	if err := c.Check(); err != nil {
		return Choices{}, fmt.Errorf("reading the sets in %s: %w", path, err)
	}
	return c, nil
}

// Write replaces the file at path with c, checked first: a reader or a
// crash sees the old file or the new one.
func Write(path string, c Choices) error {
	if err := c.Check(); err != nil {
		return err
	}
	c.Version = version
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the sets: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("making mcptray's config folder: %w", err)
	}
	return config.WriteFileAtomic(path, append(b, '\n'), 0o600)
}

// Modify reads the choices at path, changes them with fn, and writes them
// back when fn succeeds; nothing is written when it fails.
func Modify(path string, fn func(*Choices) error) (Choices, error) {
	c, err := Read(path)
	if err != nil {
		return Choices{}, err
	}
	if err := fn(&c); err != nil {
		return Choices{}, err
	}
	if err := Write(path, c); err != nil {
		return Choices{}, err
	}
	return c, nil
}
