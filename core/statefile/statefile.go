// Package statefile keeps a small state of mcptray's own in a JSON file:
// values by key, such as each server's last connect time (core/conn) or
// when each app last used the gateway (core/service). Such a file is
// mcptray's, never the person's: a missing one is an empty state, and so
// is one that cannot be read, with the error that says why; it is made
// anew at the next write.
//
// The file is {"version": 1, FIELD: {KEY: VALUE, …}}. What is read of it is
// bounded (Options.MaxSize), it is opened without waiting (a named pipe put
// in its place would keep mcptray waiting for a writer), and only a plain
// file is read. It keeps at most Options.Max values, the most recent ones
// (Options.When). A goroutine of its own (Write) writes it when asked, at
// most once every Options.Every: it lays the state over what is in the
// file then (another mcptray of the person's may have written since) and
// replaces the file at once (config.ReplaceFile), so a reader or a crash
// sees the old file or the new one, never half of either.
package statefile

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// version is the file's form.
const version = 1

// Options say where a state is kept and how.
type Options[V any] struct {
	// Path is the file; "" keeps nothing.
	Path string
	// Field is the name the values go by in the file ("servers", "apps").
	Field string
	// MaxSize bounds what is read of the file, in bytes; Max bounds the
	// values kept, the most recent by When.
	MaxSize int64
	Max     int
	When    func(V) time.Time
	// Merge lays v over old (had false: there was none) and returns what
	// to keep and whether that is news; nil keeps v unless old is more
	// recent.
	Merge func(old V, had bool, v V) (V, bool)
	// Valid says whether a value read from the file may be kept; nil
	// keeps every one with a key.
	Valid func(key string, v V) bool
	// Every is the least time between two writes.
	Every time.Duration
	// Gather, when set, is asked for news before each write, and Write
	// writes every Every even when nobody asks: for a state whose news
	// arrives without a word (an app's last call).
	Gather func() map[string]V
	// Logger hears of writes that fail, in Failed's words ("the servers'
	// connect times are not kept").
	Logger *slog.Logger
	Failed string
	// Saved, when set, is called after each write (tests).
	Saved func()
}

// File is a state kept in a file: the copy in memory, and the writer's
// state. Its methods are safe for concurrent use.
type File[V any] struct {
	o Options[V]

	mu    sync.Mutex
	vals  map[string]V
	dirty bool // vals has news the file has not

	write sync.Mutex    // one write of the file at a time
	poke  chan struct{} // asks the writer to write
}

// Open reads the file into a new File. A file that cannot be read gives an
// empty state and the error that says why, which the caller may log in
// its own words; the File works all the same.
func Open[V any](o Options[V]) (*File[V], error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	f := &File[V]{o: o, vals: map[string]V{}, poke: make(chan struct{}, 1)}
	if o.Path == "" {
		return f, nil
	}
	vals, err := f.Read()
	f.vals = vals
	return f, err
}

// Read reads the file as it is on disk now: an empty state when it is
// missing, or cannot be read (with the error that says why).
func (f *File[V]) Read() (map[string]V, error) {
	empty := map[string]V{}
	fh, err := os.OpenFile(f.o.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if err != nil {
		return empty, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil {
		return empty, err
	} else if !st.Mode().IsRegular() {
		return empty, fmt.Errorf("%s is not a file", f.o.Path)
	}
	b, err := io.ReadAll(io.LimitReader(fh, f.o.MaxSize+1))
	if err != nil {
		return empty, err
	}
	if int64(len(b)) > f.o.MaxSize {
		return empty, fmt.Errorf("%s is larger than it can be", f.o.Path)
	}
	var fields map[string]json.RawMessage // "version", and Field
	if err := json.Unmarshal(b, &fields); err != nil {
		return empty, fmt.Errorf("%s is damaged: %w", f.o.Path, err)
	}
	var vals map[string]V
	if raw, ok := fields[f.o.Field]; ok {
		if err := json.Unmarshal(raw, &vals); err != nil {
			return empty, fmt.Errorf("%s is damaged: %w", f.o.Path, err)
		}
	}
	out := map[string]V{}
	for k, v := range vals {
		if k != "" && (f.o.Valid == nil || f.o.Valid(k, v)) {
			out[k] = v
		}
	}
	return f.bound(out), nil
}

// Values returns a copy of the state.
func (f *File[V]) Values() map[string]V {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.vals)
}

// Merge lays news over the state, asks the writer to write when that
// changed it, and returns a copy of the state.
func (f *File[V]) Merge(news map[string]V) map[string]V {
	f.mu.Lock()
	changed := f.mergeInto(f.vals, news)
	if changed {
		f.dirty = true
		f.bound(f.vals)
	}
	out := maps.Clone(f.vals)
	f.mu.Unlock()
	if changed {
		f.Poke()
	}
	return out
}

// Set keeps v under key, as Merge does.
func (f *File[V]) Set(key string, v V) { f.Merge(map[string]V{key: v}) }

// MergeInto lays src over dst as the File merges, and reports whether dst
// changed.
func (f *File[V]) MergeInto(dst, src map[string]V) bool { return f.mergeInto(dst, src) }

func (f *File[V]) mergeInto(dst, src map[string]V) bool {
	changed := false
	for k, v := range src {
		old, had := dst[k]
		keep, news := v, true
		if f.o.Merge != nil {
			keep, news = f.o.Merge(old, had, v)
		} else if had && f.o.When(old).After(f.o.When(v)) {
			news = false
		}
		if news {
			dst[k] = keep
			changed = true
		}
	}
	return changed
}

// bound keeps the Max most recent values of m, and returns m.
func (f *File[V]) bound(m map[string]V) map[string]V {
	if len(m) <= f.o.Max {
		return m
	}
	keys := slices.SortedFunc(maps.Keys(m), func(x, y string) int {
		return cmp.Or(f.o.When(m[y]).Compare(f.o.When(m[x])), cmp.Compare(x, y))
	})
	for _, k := range keys[f.o.Max:] {
		delete(m, k)
	}
	return m
}

// Poke asks the writer to write (after asking Gather for news).
func (f *File[V]) Poke() {
	select {
	case f.poke <- struct{}{}:
	default: // asked already
	}
}

// Write writes the file when asked (Poke, or news in Merge), at once and
// then at most once every Every, and with Gather every Every too, until
// ctx ends; then it writes what is left, and returns.
func (f *File[V]) Write(ctx context.Context) {
	if f.o.Path == "" {
		return
	}
	var tick <-chan time.Time
	if f.o.Gather != nil {
		t := time.NewTicker(f.o.Every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			f.Save()
			return
		case <-tick:
		case <-f.poke:
		}
		f.Save()
		wait := time.NewTimer(f.o.Every)
		select {
		case <-ctx.Done():
			wait.Stop()
			f.Save()
			return
		case <-wait.C:
		}
	}
}

// Save writes the state when it has news (Gather's too), laid over what
// the file holds now; a damaged file is replaced. It reports a failure to
// the Logger, and tries again at the next write.
func (f *File[V]) Save() {
	if f.o.Path == "" {
		return
	}
	if f.o.Gather != nil {
		f.Merge(f.o.Gather())
	}
	f.write.Lock()
	defer f.write.Unlock()
	f.mu.Lock()
	if !f.dirty {
		f.mu.Unlock()
		return
	}
	f.dirty = false
	mine := maps.Clone(f.vals)
	f.mu.Unlock()
	all, _ := f.Read() // what cannot be read is replaced
	f.mergeInto(all, mine)
	b, err := json.MarshalIndent(map[string]any{"version": version, f.o.Field: f.bound(all)}, "", "  ")
	if err == nil {
		err = config.ReplaceFile(f.o.Path, append(b, '\n'), 0o600)
	}
	if err != nil {
		f.o.Logger.Warn(f.o.Failed, "err", err)
		f.mu.Lock()
		f.dirty = true
		f.mu.Unlock()
	}
	if f.o.Saved != nil {
		f.o.Saved()
	}
}
