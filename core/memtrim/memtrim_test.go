package memtrim

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

var sink [][]byte

// released is how much of the heap the runtime has given back so far.
func released() uint64 {
	m := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// burst allocates 32 MB and frees it: free heap, not yet given back.
func burst() {
	for range 32 {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	runtime.GC()
}

// TestTrimGivesBackWhenQuiet, with the real runtime: a burst leaves
// 32 MB of free heap; a look after a quiet period gives it back, once;
// a look after work does not, and the next quiet one gives back again.
// Work is seen by the bytes it allocated (the processor time counts as
// quiet here, Quiet being an hour), and by its processor time.
func TestTrimGivesBackWhenQuiet(t *testing.T) {
	s := state{opts: Options{Every: time.Second, Quiet: time.Hour, QuietBytes: 8 << 20, Least: 4 << 20}}
	burst()
	s.mark() // the burst was before the period the first look judges
	before := released()
	if freed := s.look(); freed < 16<<20 {
		t.Fatalf("a quiet look found %d bytes of free heap to give back, want the burst's", freed)
	}
	if got := released() - before; got < 16<<20 {
		t.Errorf("a quiet look gave back %d bytes, want the burst's 32 MB", got)
	}
	if freed := s.look(); freed != 0 {
		t.Errorf("a second quiet look, with no work between, gave back %d bytes", freed)
	}

	// Work: 32 MB allocated since the last look.
	burst()
	if freed := s.look(); freed != 0 {
		t.Errorf("a look after 32 MB were allocated gave back %d bytes", freed)
	}
	if freed := s.look(); freed < 16<<20 {
		t.Errorf("quiet after allocating: found %d bytes to give back, want the burst's", freed)
	}

	// Work by processor time alone (the bytes allowed are far more).
	s.opts.QuietBytes, s.opts.Quiet = 1<<40, time.Nanosecond
	burst()
	if freed := s.look(); freed != 0 {
		t.Errorf("a look after work gave back %d bytes", freed)
	}
	s.opts.Quiet = time.Hour
	if freed := s.look(); freed < 16<<20 {
		t.Errorf("quiet after work: found %d bytes to give back, want the burst's", freed)
	}
}
