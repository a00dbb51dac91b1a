// Package memtrim gives the memory a quiet mcptray no longer uses back to
// the system.
//
// Go's collector frees what a burst of work allocated (servers starting,
// a run of calls), but the runtime keeps the freed pages, up to about
// its next collection's goal, for the next burst; a tray that then sits
// idle for hours holds them all that time (about 5 MB of the tray's
// 60 MB with 20 servers: bench/README.md). Run looks every Every: once
// the process allocated less than QuietBytes and spent less than Quiet
// of processor time since its last look, and the heap holds at least
// Least of free pages, it returns them (debug.FreeOSMemory), once, until
// the process works again. A busy mcptray is never slowed by it: it
// reads three of the runtime's counters a look, and collects only when
// nothing else happens. (The runtime's processor-time counters move only
// when a collection ends; the bytes allocated are counted as they go,
// so work between two collections is seen by them.)
package memtrim

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Options say when a process counts as quiet. Zero values are the
// defaults.
type Options struct {
	// Every is how often Run looks; 30 s by default.
	Every time.Duration
	// Quiet is the processor time below which a period counts as
	// quiet; 1 % of Every by default.
	Quiet time.Duration
	// QuietBytes is how much may be allocated in a period that counts
	// as quiet; 4 MB by default.
	QuietBytes uint64
	// Least is the free heap worth giving back; 2 MB by default.
	Least uint64
}

// The runtime's counters look reads: the processor time it could have
// used (GOMAXPROCS over the time it ran), the part of it nothing of Go
// used, the bytes allocated so far, and the heap's free pages not yet
// given back.
const (
	cpuTotal = "/cpu/classes/total:cpu-seconds"
	cpuIdle  = "/cpu/classes/idle:cpu-seconds"
	allocs   = "/gc/heap/allocs:bytes"
	heapFree = "/memory/classes/heap/free:bytes"
)

// Run looks every opts.Every until ctx ends, and gives the free heap
// back when the process was quiet (see the package's doc).
func Run(ctx context.Context, log *slog.Logger, opts Options) {
	if opts.Every <= 0 {
		opts.Every = 30 * time.Second
	}
	if opts.Quiet <= 0 {
		opts.Quiet = opts.Every / 100
	}
	if opts.QuietBytes == 0 {
		opts.QuietBytes = 4 << 20
	}
	if opts.Least == 0 {
		opts.Least = 2 << 20
	}
	t := time.NewTicker(opts.Every)
	defer t.Stop()
	s := state{opts: opts}
	s.mark()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if freed := s.look(); freed > 0 && log != nil {
				log.Debug("memory: gave the free heap back, being quiet", "MB", freed>>20)
			}
		}
	}
}

// state is what Run remembers between looks.
type state struct {
	opts    Options
	cpu     float64 // the process's processor seconds at the last look
	alloc   uint64  // and the bytes it had allocated
	trimmed bool    // given back since the process last worked
}

// mark takes the counters as they are now for the next look's start.
func (s *state) mark() { s.cpu, s.alloc, _ = read() }

// look is one look: it gives the free heap back when the process was
// quiet since the last one and has not done so since it last worked,
// and returns how many bytes of free heap there were then (0 when it
// did nothing).
func (s *state) look() uint64 {
	cpu, alloc, free := read()
	spent := time.Duration((cpu - s.cpu) * float64(time.Second))
	allocated := alloc - s.alloc
	s.cpu, s.alloc = cpu, alloc
	if spent >= s.opts.Quiet || allocated >= s.opts.QuietBytes {
		s.trimmed = false
		return 0
	}
	if s.trimmed || free < s.opts.Least {
		return 0
	}
	debug.FreeOSMemory()
	s.trimmed = true
	s.mark() // the collection's own time is not work
	return free
}

// read returns the processor seconds the process's Go code and runtime
// used so far, as the runtime estimates them at its last collection, the
// bytes it allocated so far, and its heap's free pages that it has not
// given back.
func read() (cpu float64, alloc, free uint64) {
	m := []metrics.Sample{{Name: cpuTotal}, {Name: cpuIdle}, {Name: allocs}, {Name: heapFree}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindFloat64 && m[1].Value.Kind() == metrics.KindFloat64 {
		cpu = m[0].Value.Float64() - m[1].Value.Float64()
	}
	if m[2].Value.Kind() == metrics.KindUint64 {
		alloc = m[2].Value.Uint64()
	}
	if m[3].Value.Kind() == metrics.KindUint64 {
		free = m[3].Value.Uint64()
	}
	return cpu, alloc, free
}
