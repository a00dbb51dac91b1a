package conn

import (
	"cmp"
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
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// Each server's last connect time (from its place in the window to a
// finished handshake) is remembered in Options.HistoryFile, so that the
// next start can let the slowest servers in first (window.go). The file is
// keyed by the server's approval key, a hash of what it runs: it holds no
// name, command, argument or value, and a server whose config changes is
// a new server. A missing or damaged file is no history: the queue is then
// in config order, and nothing is said to the person.

// historyEvery is how often, at most, the file is written while servers
// connect; Close writes what is left.
const historyEvery = 2 * time.Second

// maxHistory bounds the servers the file keeps, the most recently
// connected; maxHistorySize bounds what is read of it.
const (
	maxHistory     = 256
	maxHistorySize = 64 << 10
)

// connectTime is what is kept of one server.
type connectTime struct {
	MS int64     `json:"ms"` // its last connect time, in milliseconds
	At time.Time `json:"at"` // when it connected then
}

// historyFile is the file's form.
type historyFile struct {
	Version int                    `json:"version"`
	Servers map[string]connectTime `json:"servers"`
}

// history is the Manager's copy of the file.
type history struct {
	path string // "" keeps nothing
	log  *slog.Logger

	mu    sync.Mutex
	times map[string]connectTime
	dirty bool

	write sync.Mutex    // one write of the file at a time
	poke  chan struct{} // asks the writer to write
	stop  chan struct{} // closed by close
	done  chan struct{} // closed when the writer has ended
}

// newHistory reads path, and keeps what record is told in it until close.
func newHistory(path string, log *slog.Logger) *history {
	h := &history{path: path, log: log, times: map[string]connectTime{}}
	if path == "" {
		return h
	}
	times, err := readHistory(path)
	if err != nil {
		log.Info("starting servers in config order: their connect times cannot be read", "err", err)
	}
	h.times = times
	h.poke = make(chan struct{}, 1)
	h.stop = make(chan struct{})
	h.done = make(chan struct{})
	go h.writer()
	return h
}

// readHistory reads the file; a missing one is empty, and so is one that
// cannot be read, with the error that says why.
func readHistory(path string) (map[string]connectTime, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]connectTime{}, nil
	}
	if err != nil {
		return map[string]connectTime{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHistorySize+1))
	if err != nil {
		return map[string]connectTime{}, err
	}
	if len(b) > maxHistorySize {
		return map[string]connectTime{}, fmt.Errorf("%s is larger than it can be", path)
	}
	var file historyFile
	if err := json.Unmarshal(b, &file); err != nil {
		return map[string]connectTime{}, fmt.Errorf("%s is damaged: %w", path, err)
	}
	out := map[string]connectTime{}
	for k, v := range file.Servers {
		if k != "" && v.MS >= 0 {
			out[k] = v
		}
	}
	return out, nil
}

// historyKey is the key e's time is kept under.
func historyKey(e *config.Entry) string {
	if e.ApprovalKey != "" {
		return e.ApprovalKey
	}
	return config.ApprovalKey(&e.Server)
}

// record keeps that e took took to connect, at now.
func (h *history) record(e *config.Entry, took time.Duration, now time.Time) {
	h.mu.Lock()
	h.times[historyKey(e)] = connectTime{MS: took.Milliseconds(), At: now.UTC().Truncate(time.Second)}
	h.dirty = true
	h.mu.Unlock()
	if h.poke != nil {
		select {
		case h.poke <- struct{}{}:
		default:
		}
	}
}

// expected returns how long each of entries is expected to take to
// connect, by key: its last time, or for a server never connected the
// median of the others' (0 when none is known, so that all are equal).
func (h *history) expected(entries []config.Entry) map[string]time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]time.Duration, len(entries))
	var known []time.Duration
	for i := range entries {
		k := historyKey(&entries[i])
		if t, ok := h.times[k]; ok {
			d := time.Duration(t.MS) * time.Millisecond
			out[k] = d
			known = append(known, d)
		}
	}
	median := medianOf(known)
	for i := range entries {
		k := historyKey(&entries[i])
		if _, ok := out[k]; !ok {
			out[k] = median
		}
	}
	return out
}

// medianOf is the median of ds, 0 for none.
func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// writer writes the file when poked, at most once every historyEvery,
// until close.
func (h *history) writer() {
	defer close(h.done)
	for {
		select {
		case <-h.stop:
			return
		case <-h.poke:
		}
		h.save()
		t := time.NewTimer(historyEvery)
		select {
		case <-h.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// save writes the Manager's copy when it has news, merged with the file as
// another mcptray may have left it, keeping the maxHistory newest.
func (h *history) save() {
	h.write.Lock()
	defer h.write.Unlock()
	h.mu.Lock()
	if !h.dirty {
		h.mu.Unlock()
		return
	}
	h.dirty = false
	mine := maps.Clone(h.times)
	h.mu.Unlock()
	all, _ := readHistory(h.path) // a damaged file is replaced
	for k, v := range mine {
		if old, ok := all[k]; !ok || !old.At.After(v.At) {
			all[k] = v
		}
	}
	if len(all) > maxHistory {
		keys := slices.SortedFunc(maps.Keys(all), func(x, y string) int {
			return cmp.Or(all[y].At.Compare(all[x].At), cmp.Compare(x, y))
		})
		for _, k := range keys[maxHistory:] {
			delete(all, k)
		}
	}
	b, err := json.Marshal(historyFile{Version: 1, Servers: all})
	if err == nil {
		err = config.ReplaceFile(h.path, append(b, '\n'), 0o600)
	}
	if err != nil {
		h.log.Info("the servers' connect times are not kept", "err", err)
	}
}

// close stops the writer and writes what is left.
func (h *history) close() {
	if h.path == "" {
		return
	}
	close(h.stop)
	<-h.done
	h.save()
}
