package npmpin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// A tree's install scripts may write its node_modules, and so leave a
// link where a package's file or folder was: to the person's ~/.ssh, to
// mcptray's config, into /proc/self. mcptray later reads the tree
// outside any sandbox (the review of an update, the program that runs, the
// facts), and gives the server what its program's folder holds. So once
// the scripts ran, a tree with a link that leads out of it, or nowhere
// but round in a loop, is refused, and the words name the link and the
// packages whose scripts ran; links that stay in it (node_modules/.bin's,
// to ../pkg/bin/cli.js) are kept. The program that runs is found through
// no link at all (Program).

// linksOut says the first link in dir's node_modules that leads out of
// dir, after the install scripts of pkgs ran there; nil when there is
// none.
func linksOut(dir string, pkgs []string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("checking the tree after its install scripts: %w", err)
	}
	defer root.Close()
	var bad error
	err = fs.WalkDir(root.FS(), "node_modules", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		// root follows a link only while it stays beneath dir.
		if _, err := root.Stat(path); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		target, _ := root.Readlink(path)
		bad = fmt.Errorf("after the install scripts of %s ran, %s is a link that leads out of the tree (to %s): the tree is refused, as mcptray would read or run what lies there",
			strings.Join(pkgs, ", "), sanitize.Line(path), sanitize.Line(target))
		return fs.SkipAll
	})
	if err != nil {
		return fmt.Errorf("checking the tree after its install scripts: %w", err)
	}
	return bad
}

// noLinkOn says the first link on the way from dir to rel (a path in
// it), which Program does not go through.
func noLinkOn(dir, rel string) error {
	path := dir
	for _, part := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		path = filepath.Join(path, part)
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			r, _ := filepath.Rel(dir, path)
			return fmt.Errorf("%s is a link, which an install script may have made", filepath.ToSlash(r))
		}
	}
	return nil
}
