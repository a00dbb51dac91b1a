package conn

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// TestWindowLongestFirst: a window lets in the longest expected first, and
// among equals the one queued first, as places free up.
func TestWindowLongestFirst(t *testing.T) {
	w := newWindow(1, 0)
	expect := []time.Duration{100, 300, 200, 300, 50}
	var tickets []*ticket
	for _, e := range expect {
		tickets = append(tickets, w.enqueue(e*time.Millisecond))
	}
	w.dispatch()
	var order []int
	for range tickets {
		running := slices.IndexFunc(tickets, func(t *ticket) bool {
			select {
			case <-t.ready:
				return !slices.Contains(order, slices.Index(tickets, t))
			default:
				return false
			}
		})
		if running < 0 {
			t.Fatalf("no ticket runs after %v", order)
		}
		order = append(order, running)
		tickets[running].release()
	}
	if want := []int{1, 3, 2, 0, 4}; !slices.Equal(order, want) {
		t.Errorf("let in %v, want %v (longest first, then the first queued)", order, want)
	}
}

// TestWindowLeaveQueue: a ticket whose context ends leaves the queue, and
// one given back lets the next in.
func TestWindowLeaveQueue(t *testing.T) {
	w := newWindow(1, 0)
	first, err := acquire(w, context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := acquire(w, ctx, time.Hour); err == nil {
		t.Fatal("a ticket whose context had ended got a place")
	}
	next := w.enqueue(0)
	first.release()
	first.release() // twice does nothing
	select {
	case <-next.ready:
	default:
		t.Fatal("the place given back went to nobody; the cancelled ticket kept its place in line")
	}
	if w.running != 1 {
		t.Errorf("%d run, want 1", w.running)
	}
}

// acquire queues an attempt in w and waits for its place.
func acquire(w *window, ctx context.Context, expect time.Duration) (*ticket, error) {
	t := w.enqueue(expect)
	w.dispatch()
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// TestHistoryExpected: a server's expected time is its last one; a server
// never seen is at the median of the known ones; with none known, all are
// equal.
func TestHistoryExpected(t *testing.T) {
	a, b, c, d := stdioEntry("a"), stdioEntry("b"), stdioEntry("c"), stdioEntry("d")
	h := newHistory("", slog.New(slog.DiscardHandler))
	all := []config.Entry{a, b, c, d}
	for _, e := range h.expected(all) {
		if e != 0 {
			t.Fatalf("with no history, expected %v, want 0 for all", e)
		}
	}
	now := time.Now()
	h.record(&b, 300*time.Millisecond, now)
	h.record(&c, 200*time.Millisecond, now)
	h.record(&d, 100*time.Millisecond, now)
	got := h.expected(all)
	want := map[string]time.Duration{
		a.ApprovalKey: 200 * time.Millisecond, // the median of 300, 200, 100
		b.ApprovalKey: 300 * time.Millisecond,
		c.ApprovalKey: 200 * time.Millisecond,
		d.ApprovalKey: 100 * time.Millisecond,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("expected %v, want %v", got[k], v)
		}
	}
	if m := medianOf([]time.Duration{4, 1, 3, 2}); m != 2 {
		t.Errorf("median of 1..4 is %v, want 2 (the mean of the middle two, rounded down)", m)
	}
}

// startOrder records the order in which servers begin their handshakes:
// the order of their places in the window (their processes may start a
// little earlier, one warming up while the places are taken).
type startOrder struct {
	mu    sync.Mutex
	names []string
}

func (s *startOrder) Enabled(context.Context, slog.Level) bool { return true }
func (s *startOrder) WithGroup(string) slog.Handler            { return s }
func (s *startOrder) WithAttrs(attrs []slog.Attr) slog.Handler {
	for _, a := range attrs {
		if a.Key == "server" {
			return &startOrderFor{s, a.Value.String()}
		}
	}
	return s
}
func (s *startOrder) Handle(context.Context, slog.Record) error { return nil }

type startOrderFor struct {
	*startOrder
	server string
}

func (s *startOrderFor) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *startOrderFor) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "handshake begins" {
		s.mu.Lock()
		s.names = append(s.names, s.server)
		s.mu.Unlock()
	}
	return nil
}

func (s *startOrder) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.names)
}

// connectInOrder connects entries with one place in the window, keeping
// connect times in file, and returns the order the servers started in.
func connectInOrder(t *testing.T, file string, entries ...config.Entry) []string {
	t.Helper()
	order := &startOrder{}
	opts := testOptions()
	opts.MaxLocal = 1
	opts.HistoryFile = file
	opts.Logger = slog.New(order)
	m := New(opts)
	defer m.Close()
	if err := m.Apply(setOf(entries...)); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		waitState(t, m, e.Name, Connected)
	}
	return order.got()
}

// writeHistory writes a history file with each entry's time.
func writeHistory(t *testing.T, file string, times map[*config.Entry]time.Duration) {
	t.Helper()
	servers := map[string]connectTime{}
	for e, d := range times {
		servers[e.ApprovalKey] = connectTime{MS: d.Milliseconds(), At: time.Now().UTC()}
	}
	b, err := json.Marshal(map[string]any{"version": 1, "servers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestStartLongestFirst: with connect times remembered, the servers start
// slowest first, a new one at the median of the others, equals in config
// order; with none, in config order.
func TestStartLongestFirst(t *testing.T) {
	a, b, c, d := stdioEntry("a"), stdioEntry("b"), stdioEntry("c"), stdioEntry("d")
	file := filepath.Join(t.TempDir(), "connect-times.json")
	if got := connectInOrder(t, "", a, b, c, d); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("with no history, started %v, want config order", got)
	}
	writeHistory(t, file, map[*config.Entry]time.Duration{&b: 300 * time.Millisecond, &c: 200 * time.Millisecond, &d: 100 * time.Millisecond})
	// a is new: at the median, 200 ms, before c, which comes after it in
	// the config.
	if got := connectInOrder(t, file, a, b, c, d); !slices.Equal(got, []string{"b", "a", "c", "d"}) {
		t.Errorf("started %v, want [b a c d]", got)
	}
}

// TestHistoryWritten: the connect times are written, by approval key, when
// the manager closes; a damaged file is no history (config order), not an
// error, and is replaced.
func TestHistoryWritten(t *testing.T) {
	slow, fast := stdioEntry("slow", "-init-delay", "300ms"), stdioEntry("fast")
	file := filepath.Join(t.TempDir(), "connect-times.json")
	if err := os.WriteFile(file, []byte(`{"version":1,"servers":{"x":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := connectInOrder(t, file, fast, slow); !slices.Equal(got, []string{"fast", "slow"}) {
		t.Errorf("with a damaged file, started %v, want config order", got)
	}
	times, err := readHistory(file)
	if err != nil {
		t.Fatalf("the file is not readable after the manager closed: %v", err)
	}
	if len(times) != 2 {
		t.Fatalf("the file keeps %d servers, want 2: %v", len(times), times)
	}
	if ms := times[slow.ApprovalKey].MS; ms < 300 {
		t.Errorf("the slow server's time is %d ms, want at least its 300 ms delay", ms)
	}
	// Both pay the machine's load; only the slow one waits its delay.
	if f, s := times[fast.ApprovalKey].MS, times[slow.ApprovalKey].MS; f >= s {
		t.Errorf("the fast server's time is %d ms, the slow one's %d ms; want it less", f, s)
	}
	b, _ := os.ReadFile(file)
	for _, secret := range []string{"slow", "fast", testServerBin} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the file names %q: %s", secret, b)
		}
	}
	// Remembered: the slow one first.
	if got := connectInOrder(t, file, fast, slow); !slices.Equal(got, []string{"slow", "fast"}) {
		t.Errorf("with the times kept, started %v, want [slow fast]", got)
	}
}
