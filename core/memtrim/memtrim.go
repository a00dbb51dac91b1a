// Package memtrim gives the memory a quiet mcptray no longer uses back to
// the system.
//
// Go's collector frees what a burst of work allocated (servers starting,
// a run of calls), but the runtime keeps the freed pages, up to about
// its next collection's goal, for the next burst; a tray that then sits
// idle for hours holds them all that time (about 5 MB of the tray's
// 60 MB with 20 servers: bench/README.md). Run looks every Every: once
// the process spent less than Quiet of processor time since its last
// look, and the heap holds at least Least of free pages, it returns them
// (debug.FreeOSMemory), once, until the process works again. A busy
// mcptray is never slowed by it: it reads two of the runtime's counters
// a look, and collects only when nothing else happens.
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
	// Least is the free heap worth giving back; 2 MB by default.
	Least uint64
}

// The runtime's counters look reads: the processor time it could have
// used (GOMAXPROCS over the time it ran), the part of it nothing of Go
// used, and the heap's free pages not yet given back.
const (
	cpuTotal = "/cpu/classes/total:cpu-seconds"
	cpuIdle  = "/cpu/classes/idle:cpu-seconds"
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
	if opts.Least == 0 {
		opts.Least = 2 << 20
	}
	t := time.NewTicker(opts.Every)
	defer t.Stop()
	s := state{opts: opts}
	s.cpu, _ = read()
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
	trimmed bool    // given back since the process last worked
}

// look is one look: it gives the free heap back when the process was
// quiet since the last one and has not done so since it last worked,
// and returns how many bytes of free heap there were then (0 when it
// did nothing).
func (s *state) look() uint64 {
	cpu, free := read()
	spent := time.Duration((cpu - s.cpu) * float64(time.Second))
	s.cpu = cpu
	if spent >= s.opts.Quiet {
		s.trimmed = false
		return 0
	}
	if s.trimmed || free < s.opts.Least {
		return 0
	}
	debug.FreeOSMemory()
	s.trimmed = true
	s.cpu, _ = read() // the collection's own time is not work
	return free
}

// read returns the processor seconds the process's Go code and runtime
// used so far, as the runtime estimates them, and its heap's free pages
// that it has not given back.
func read() (cpu float64, free uint64) {
	m := []metrics.Sample{{Name: cpuTotal}, {Name: cpuIdle}, {Name: heapFree}}
	metrics.Read(m)
	if m[0].Value.Kind() == metrics.KindFloat64 && m[1].Value.Kind() == metrics.KindFloat64 {
		cpu = m[0].Value.Float64() - m[1].Value.Float64()
	}
	if m[2].Value.Kind() == metrics.KindUint64 {
		free = m[2].Value.Uint64()
	}
	return cpu, free
}
