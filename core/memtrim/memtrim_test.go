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

// TestLookGivesBackWhenQuiet, with the real runtime: a burst leaves
// 32 MB of free heap; a look after a quiet period gives it back, once;
// after work it may again, and a look after a busy period does not.
func TestLookGivesBackWhenQuiet(t *testing.T) {
	burst := func() {
		for range 32 {
			sink = append(sink, make([]byte, 1<<20))
		}
		sink = nil
		runtime.GC() // freed, not yet given back
	}
	s := state{opts: Options{Every: time.Second, Quiet: time.Hour, Least: 4 << 20}}
	s.cpu, _ = read()
	burst()
	before := released()
	if freed := s.look(); freed < 16<<20 {
		t.Fatalf("a quiet look found %d bytes of free heap to give back, want the burst's", freed)
	}
	if got := released() - before; got < 16<<20 {
		t.Errorf("a quiet look gave back %d bytes, want the burst's 32 MB", got)
	}
	burst()
	if freed := s.look(); freed != 0 {
		t.Errorf("a second quiet look, with no work between, gave back %d bytes", freed)
	}

	// Busy: the period's processor time is over Quiet.
	s.opts.Quiet = time.Nanosecond
	burst()
	if freed := s.look(); freed != 0 {
		t.Errorf("a look after work gave back %d bytes", freed)
	}
	// Quiet again after that work: it gives back again.
	s.opts.Quiet = time.Hour
	if freed := s.look(); freed < 16<<20 {
		t.Errorf("quiet after work: found %d bytes to give back, want the burst's", freed)
	}
}
