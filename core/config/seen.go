package config

import (
	"crypto/sha256"
	"io"
	"os"
	"sync"
)

// The watcher's one question after a burst of file events is "did any
// config file change since mcptray last read them all?". The service
// loads at once after its own writes (an approval, a sandbox grant), so
// the watcher, which hears of the same write a moment later, would load
// and compare everything again to find nothing new. fileSeen keeps what
// each file looked like as the newest load began, so that the watcher
// can tell its own service's write from someone else's without reading
// any file.

// fileState is what a file (or folder) looked like: whether it was there,
// its size, when it was last written, and for a file, a hash of what it
// holds. The time alone would not do: a filesystem's clock for it ticks
// every few milliseconds, so that an editor's write in place of the same
// size, made just after a load began, can leave the time as the load saw
// it. Config files are small; reading them is cheaper than loading and
// comparing them all again.
type fileState struct {
	exists bool
	size   int64
	mod    int64
	sum    [sha256.Size]byte
}

// maxHashed bounds the files stateOf reads; a larger one (no config file
// is) counts by its size and time alone.
const maxHashed = 4 << 20

func stateOf(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil {
		return fileState{}
	}
	st := fileState{exists: true, size: fi.Size(), mod: fi.ModTime().UnixNano()}
	if !fi.Mode().IsRegular() || fi.Size() > maxHashed {
		return st
	}
	// What is read is what was opened, a regular file: not a named pipe
	// put in its place since the Stat, which would keep it waiting.
	f, err := openNoWait(path)
	if err != nil {
		return st
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return st
	}
	if b, err := io.ReadAll(io.LimitReader(f, maxHashed+1)); err == nil && len(b) <= maxHashed {
		st.size, st.sum = int64(len(b)), sha256.Sum256(b)
	}
	return st
}

// fileStates is what each of paths looks like now.
func fileStates(paths []string) map[string]fileState {
	out := make(map[string]fileState, len(paths))
	for _, p := range paths {
		if p != "" {
			out[p] = stateOf(p)
		}
	}
	return out
}

// fileSeen is the newest load's files as it began, and the set it made.
type fileSeen struct {
	mu    sync.Mutex
	files map[string]fileState
	set   *Set
}

func (f *fileSeen) remember(files map[string]fileState, set *Set) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files, f.set = files, set
}

// lastSet is the set the newest load made, nil before the first: its
// folders say which project files to look at.
func (f *fileSeen) lastSet() *Set {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set
}

// Unchanged reports whether every config file of set looks as it did when
// the newest Load began: nothing was written since that was not read. A
// file that load did not look at counts as changed.
func (l *Loader) Unchanged(set *Set) bool {
	now := fileStates(l.Files(set))
	l.seen.mu.Lock()
	defer l.seen.mu.Unlock()
	if l.seen.files == nil {
		return false
	}
	for p, st := range now {
		if was, ok := l.seen.files[p]; !ok || was != st {
			return false
		}
	}
	return true
}
