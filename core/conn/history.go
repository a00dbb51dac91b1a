package conn

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/statefile"
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

// history is the Manager's copy of the file (core/statefile), and its
// writer.
type history struct {
	file   *statefile.File[connectTime]
	cancel context.CancelFunc // stops the writer
	done   chan struct{}      // closed when the writer has ended
}

// historyOptions are the file's, at path ("" keeps nothing).
func historyOptions(path string, log *slog.Logger) statefile.Options[connectTime] {
	return statefile.Options[connectTime]{
		Path: path, Field: "servers", MaxSize: maxHistorySize, Max: maxHistory,
		When:   func(t connectTime) time.Time { return t.At },
		Valid:  func(_ string, t connectTime) bool { return t.MS >= 0 },
		Every:  historyEvery,
		Logger: log, Failed: "the servers' connect times are not kept",
	}
}

// newHistory reads path, and keeps what record is told in it until close.
func newHistory(path string, log *slog.Logger) *history {
	f, err := statefile.Open(historyOptions(path, log))
	if err != nil {
		log.Info("starting servers in config order: their connect times cannot be read", "err", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &history{file: f, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		f.Write(ctx)
	}()
	return h
}

// readHistory reads the file as it is now; a missing one is empty, and so
// is one that cannot be read, with the error that says why.
func readHistory(path string) (map[string]connectTime, error) {
	f, err := statefile.Open(historyOptions(path, slog.New(slog.DiscardHandler)))
	return f.Values(), err
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
	h.file.Set(historyKey(e), connectTime{MS: took.Milliseconds(), At: now.UTC().Truncate(time.Second)})
}

// expected returns how long each of entries is expected to take to
// connect, by key: its last time, or for a server never connected the
// median of the others' (0 when none is known, so that all are equal).
func (h *history) expected(entries []config.Entry) map[string]time.Duration {
	times := h.file.Values()
	out := make(map[string]time.Duration, len(entries))
	var known []time.Duration
	for i := range entries {
		k := historyKey(&entries[i])
		if t, ok := times[k]; ok {
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

// close stops the writer, which writes what is left.
func (h *history) close() {
	h.cancel()
	<-h.done
}
