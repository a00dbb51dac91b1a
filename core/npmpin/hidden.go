package npmpin

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// A tree's code is read for characters that do not show or that change
// how a line reads (sanitize.Find: bidi overrides that make code run
// other than it reads, zero-width and tag characters) when its facts are
// told, before its first approval, as an update's added lines are
// (review.go): what runs is what the person approved, and a person who
// approves a Trojan-source line approves what they did not see.
//
// The files of each package of the tree are read, the pinned package's
// first, text files only (no NUL byte), beneath the tree and through no
// link, as packageFiles does: an install script may have left a link to
// the person's files. The reading is bounded: at most maxScanFiles files,
// none larger than maxScanFile, maxScanBytes in all; the files past the
// bounds are counted, not read.
const (
	maxScanFiles = 20000
	maxScanFile  = 16 << 20
	maxScanBytes = 128 << 20
)

// bom is the byte order mark a file may begin with, which node passes
// over and which hides nothing there.
const bom = "\ufeff"

// hiddenIn lists where the files of the packages of lock's tree, at dir,
// hold hidden characters: at most maxHidden, more counting the rest, and
// unread the files past the bounds.
func hiddenIn(dir string, lock Lock) (found []HiddenChar, more, unread int, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading the tree's code: %w", err)
	}
	defer root.Close()
	pkgs := slices.Clone(lock.Packages)
	top := "node_modules/" + lock.Root
	slices.SortStableFunc(pkgs, func(a, b Package) int { // the pinned package first
		switch {
		case a.Path == top && b.Path != top:
			return -1
		case b.Path == top && a.Path != top:
			return 1
		}
		return 0
	})
	files, total := 0, int64(0)
	for _, p := range pkgs {
		pkg := filepath.ToSlash(filepath.Clean(p.Path))
		// A folder that cannot be read, or a link out of the tree, is
		// passed over: nothing beyond the tree is read.
		_ = fs.WalkDir(root.FS(), pkg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == "node_modules" && path != pkg {
				return filepath.SkipDir // its packages are the tree's own
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if files == maxScanFiles || info.Size() > maxScanFile || total+info.Size() > maxScanBytes {
				unread++
				return nil
			}
			data, err := fs.ReadFile(root.FS(), path)
			if err != nil {
				return nil
			}
			files++
			total += int64(len(data))
			if bytes.IndexByte(data, 0) >= 0 {
				return nil // not text
			}
			text := string(data)
			shift := 0
			if strings.HasPrefix(text, bom) {
				text, shift = text[len(bom):], 1
			}
			name := sanitize.Line(p.Name + "/" + strings.TrimPrefix(path, pkg+"/"))
			for _, f := range sanitize.Find(text) {
				if len(found) == maxHidden {
					more++
					continue
				}
				if f.Line == 1 {
					f.Column += shift
				}
				found = append(found, HiddenChar{File: name, Found: f})
			}
			return nil
		})
	}
	return found, more, unread, nil
}

// HiddenWords says where the tree's files hold characters that do not
// show or change how the code reads, one line each, in the words of an
// update's review, and how many files were past the bounds of the
// reading; "" when none do and all were read.
func (f Facts) HiddenWords() string {
	var b strings.Builder
	if len(f.Hidden) > 0 {
		b.WriteString("Its files hold characters that do not show or change how the code reads:\n")
		for _, h := range f.Hidden {
			fmt.Fprintf(&b, "  %s\n", h.Words())
		}
		if f.HiddenMore > 0 {
			fmt.Fprintf(&b, "  and %d more\n", f.HiddenMore)
		}
	}
	if f.Unread > 0 {
		fmt.Fprintf(&b, "%d of its files were not read for hidden characters: mcptray reads at most %d files, %d MB in all, none over %d MB.\n",
			f.Unread, maxScanFiles, maxScanBytes>>20, maxScanFile>>20)
	}
	return b.String()
}
