package gateway

import (
	"context"
	"sync"
	"time"
)

// workerIdle is how long a session's idle worker waits for the next
// request before it ends.
const workerIdle = 30 * time.Second

// workers runs one session's requests side by side. A worker that has
// finished a request waits a while for the next one: a goroutine's stack
// grows while a request is decoded and answered, and a fresh goroutine
// for every request grew it again each time, which cost more CPU than the
// gateway's own work on a call.
type workers struct {
	ctx  context.Context // the session's: its end ends the idle workers
	wg   *sync.WaitGroup
	jobs chan func() // unbuffered: a send succeeds only when a worker is idle
}

func newWorkers(ctx context.Context, wg *sync.WaitGroup) *workers {
	return &workers{ctx: ctx, wg: wg, jobs: make(chan func())}
}

// run runs job on an idle worker, or on a new one when none is idle.
func (w *workers) run(job func()) {
	select {
	case w.jobs <- job:
	default:
		w.wg.Go(func() {
			job()
			w.wait()
		})
	}
}

// wait takes the next jobs until none comes for workerIdle or the session
// ends.
func (w *workers) wait() {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case job := <-w.jobs:
			job()
			idle.Reset(workerIdle)
		case <-idle.C:
			return
		case <-w.ctx.Done():
			return
		}
	}
}
