package conn

import (
	"testing"
	"time"
)

// TestBackoff: the wait doubles from the minimum at each failure in a row up
// to the maximum, less up to a fifth of jitter, which really varies.
func TestBackoff(t *testing.T) {
	t.Parallel()
	const lo, hi = time.Second, 5 * time.Minute
	for _, tc := range []struct {
		failures int
		nominal  time.Duration
	}{
		{0, time.Second}, // as for the first failure
		{1, time.Second},
		{2, 2 * time.Second},
		{3, 4 * time.Second},
		{9, 256 * time.Second},
		{10, 5 * time.Minute}, // 512 s, capped
		{1000, 5 * time.Minute},
	} {
		seen := map[time.Duration]bool{}
		for range 200 {
			got := backoff(tc.failures, lo, hi)
			if got > tc.nominal || got < tc.nominal-tc.nominal/5 {
				t.Fatalf("backoff(%d) = %v; want between %v and %v", tc.failures, got, tc.nominal-tc.nominal/5, tc.nominal)
			}
			seen[got] = true
		}
		if len(seen) < 2 {
			t.Errorf("backoff(%d) gave %v every time: no jitter", tc.failures, seen)
		}
	}
	if got := backoff(3, time.Nanosecond, time.Nanosecond); got < 0 || got > time.Nanosecond {
		t.Errorf("backoff with a 1ns range = %v", got)
	}
}
