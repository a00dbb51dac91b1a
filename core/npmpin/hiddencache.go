package npmpin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/mcptray/mcptray/core/sanitize"
)

// A pinned tree's code is read for hidden characters once (hidden.go):
// the first look at it, before its approval, keeps what the reading found
// in the tree's folder, and each look after reads that instead of the
// tree. An installed tree does not change while it is pinned (its
// lockfile and installed mark say which tree it is), so the result stays
// true for it.
//
// The result lies beside the lockfile, outside node_modules: an install
// script, which may write node_modules, cannot leave a result that says
// its package hides nothing. It is believed only for the tree whose hash
// it names, and only once that tree is installed; Install removes it
// before it installs a tree again. It is believed only from the mcptray
// that read it (hiddenReader): a newer one, which may find what an older
// one missed, reads the tree again once.

// hiddenCacheName names the kept result in a tree's folder.
const hiddenCacheName = ".mcptray-hidden.json"

// maxHiddenCache bounds the kept result's size: maxHidden findings are
// far less.
const maxHiddenCache = 1 << 20

// hiddenScan is the kept result of reading one tree.
type hiddenScan struct {
	Hash   string       `json:"hash"`
	Reader string       `json:"reader"`
	Hidden []HiddenChar `json:"hidden,omitempty"`
	More   int          `json:"more,omitempty"`
	Unread int          `json:"unread,omitempty"`
}

// hiddenOf is hiddenIn for p's tree, read once: an installed tree's
// result is kept and read again after.
func hiddenOf(p Pin) (found []HiddenChar, more, unread int, err error) {
	installed := p.Installed()
	path := filepath.Join(p.Dir, hiddenCacheName)
	if installed {
		if s, ok := readHiddenScan(path, p.Lock.Hash); ok {
			return s.Hidden, s.More, s.Unread, nil
		}
	}
	found, more, unread, err = hiddenIn(p.Dir, p.Lock)
	if err != nil || !installed {
		return found, more, unread, err
	}
	data, jerr := json.Marshal(hiddenScan{Hash: p.Lock.Hash, Reader: hiddenReader(), Hidden: found, More: more, Unread: unread})
	if jerr == nil {
		jerr = writeFresh(path, data)
	}
	if jerr != nil {
		return found, more, unread, fmt.Errorf("keeping what reading the tree found: %w", jerr)
	}
	return found, more, unread, nil
}

// readHiddenScan reads the result kept at path for the tree hash: false
// when there is none, it is not a plain file, or it names another tree.
func readHiddenScan(path, hash string) (hiddenScan, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return hiddenScan{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return hiddenScan{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHiddenCache+1))
	if err != nil || len(data) > maxHiddenCache {
		return hiddenScan{}, false
	}
	var s hiddenScan
	if json.Unmarshal(data, &s) != nil || s.Hash != hash || s.Reader != hiddenReader() || len(s.Hidden) > maxHidden {
		return hiddenScan{}, false
	}
	for i := range s.Hidden {
		s.Hidden[i].File = sanitize.Line(s.Hidden[i].File)
	}
	return s, true
}

// hiddenReader names the mcptray reading trees: its version and the
// commit it was built from, as its build says them.
var hiddenReader = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	reader := "mcptray " + bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			reader += " " + s.Key + "=" + s.Value
		}
	}
	return reader
})

// forgetHidden removes the result kept in dir, before its tree is
// installed again.
func forgetHidden(dir string) error {
	if err := os.Remove(filepath.Join(dir, hiddenCacheName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing what reading the tree found: %w", err)
	}
	return nil
}
