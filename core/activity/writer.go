package activity

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"
)

// The writer: calls hand their rows over (RecordCall, which never waits)
// and one goroutine writes them, a batch per transaction, every FlushEvery
// or BatchRows rows. Shaping and masking the arguments and hashing happen
// there, off the call's path. The writer is woken by the first row of a
// batch (and by a full batch), not by every row: on a busy gateway a wake
// a call cost the call a second thread's wake-up on the same cores
// (bench/README.md).

// Limits on what a row keeps.
const (
	maxName   = 200      // an app's, server's or tool's name
	maxReason = 1000     // a reason
	maxKept   = 16 << 10 // kept arguments; longer ones keep their shape
)

// item is what travels to the writer: a trust decision, or when trust
// is nil a call. The call is held by value: the rows' array is the
// writer's to use again (take), so a call handed over allocates nothing.
type item struct {
	call  Call
	trust *Trust
}

// rows are the rows handed over and not yet taken by the writer.
type rows struct {
	mu    sync.Mutex
	items []item
	told  bool // the writer was woken for them
}

// hand gives the writer it, and reports whether there was room.
func (l *Log) hand(it item) bool {
	r := &l.rows
	r.mu.Lock()
	if len(r.items) >= l.opts.Queue {
		r.mu.Unlock()
		return false
	}
	r.items = append(r.items, it)
	wake := !r.told || len(r.items) == l.opts.BatchRows
	r.told = true
	r.mu.Unlock()
	if wake {
		select {
		case l.wake <- struct{}{}:
		default: // woken already
		}
	}
	return true
}

// take gives the writer the rows waiting, in the place of spare (an
// empty slice, whose array is used for the next rows).
func (l *Log) take(spare []item) []item {
	r := &l.rows
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.items
	r.items, r.told = spare[:0], false
	return got
}

// waiting is how many rows wait for the writer.
func (l *Log) waiting() int {
	l.rows.mu.Lock()
	defer l.rows.mu.Unlock()
	return len(l.rows.items)
}

// RecordCall hands a call to the writer, without waiting: when the writer
// is that far behind (Queue rows), the row is dropped and counted. It is
// what the gateway's calls pay for their record. A nil or read-only Log
// records nothing.
func (l *Log) RecordCall(c Call) {
	if l == nil || l.wake == nil {
		return
	}
	if !l.hand(item{call: c}) {
		l.dropped.Add(1)
	}
}

// RecordTrust records one of the person's trust decisions; it does not
// wait for the write.
func (l *Log) RecordTrust(t Trust) {
	if l == nil || l.wake == nil {
		return
	}
	if t.Time.IsZero() {
		t.Time = l.opts.Now()
	}
	if !l.hand(item{trust: &t}) {
		l.dropped.Add(1)
	}
}

// Flush waits until every row handed over before it was written.
func (l *Log) Flush(ctx context.Context) error {
	if l.wake == nil {
		return nil
	}
	ch := make(chan struct{})
	select {
	case l.flushes <- ch:
	case <-l.done:
		return errors.New("the activity record is closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer is the writer goroutine's state.
type writer struct {
	l        *Log
	lastID   int64
	prev     []byte
	mask     *masker
	maskedAt time.Time
	sealer   *sealer              // nil: chained, not sealed
	stmts    map[string]*sql.Stmt // prepared, by their SQL
}

func (l *Log) run() {
	defer close(l.done)
	ctx := context.Background()
	w := &writer{l: l}
	defer w.close()
	var spare []item
	if err := w.load(ctx); err != nil {
		l.log.Warn("activity: reading the record's last row; calls are not recorded", "err", err)
		for { // keep taking them, so that calls never wait
			select {
			case <-l.wake:
				spare = clear0(l.take(spare), 2*l.opts.BatchRows)
			case <-l.pruneNow:
			case ch := <-l.flushes:
				close(ch)
			case r := <-l.resets:
				r.done <- resetDone{err: err}
			case <-l.stop:
				return
			}
		}
	}
	w.openSealer(ctx)
	w.prune(ctx)
	tick := time.NewTicker(pruneEvery)
	defer tick.Stop()
	due := time.NewTimer(l.opts.FlushEvery)
	due.Stop()
	dueSet := false              // due runs: a batch waits
	var sealDue <-chan time.Time // set while written rows wait for their seal
	var dropped int64            // as last said in the log
	seal := func() {
		sealDue = nil
		if wait := w.sealIfDue(ctx); wait > 0 {
			sealDue = time.After(wait)
		}
	}
	flush := func() {
		if dueSet {
			due.Stop()
			dueSet = false
		}
		batch := l.take(spare)
		if len(batch) > 0 {
			w.write(ctx, batch)
			if sealDue == nil {
				seal()
			}
		}
		spare = clear0(batch, 2*l.opts.BatchRows)
		if n := l.dropped.Load(); n != dropped {
			l.log.Warn("activity: calls were not recorded: the record could not keep up with them", "calls", n-dropped)
			dropped = n
		}
	}
	for {
		select {
		case <-l.wake:
			switch n := l.waiting(); {
			case n >= l.opts.BatchRows:
				flush()
			case n > 0 && !dueSet:
				due.Reset(l.opts.FlushEvery)
				dueSet = true
			}
		case <-due.C:
			dueSet = false
			flush()
		case <-sealDue:
			seal()
		case <-l.pruneNow:
			flush()
			w.prune(ctx)
		case ch := <-l.flushes:
			flush()
			select {
			case <-l.pruneNow: // asked for before the Flush
				w.prune(ctx)
			default:
			}
			w.sealAll(ctx)
			sealDue = nil
			close(ch)
		case r := <-l.resets:
			flush()
			n, err := w.reset(ctx, r.by)
			sealDue = nil
			r.done <- resetDone{deleted: n, err: err}
		case <-tick.C:
			flush()
			w.prune(ctx)
		case <-l.stop:
			flush()
			w.sealAll(ctx)
			return
		}
	}
}

// clear0 is batch emptied, its items let go, for the next batch; an
// array grown past keep items in a burst the writer fell behind on is let
// go too once the burst is over (batch is no longer than half of keep),
// so that a quiet mcptray does not hold it and a busy one does not grow
// it again at every batch.
func clear0(batch []item, keep int) []item {
	if cap(batch) > keep && len(batch) <= keep/2 {
		return nil
	}
	clear(batch)
	return batch[:0]
}

// load reads where the chain stands: the newest row's id and hash, or
// when retention left none, the last one it deleted.
func (w *writer) load(ctx context.Context) error {
	// One transaction: another process's write between the reads would
	// otherwise give an id and a hash of different rows.
	tx, err := w.l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `SELECT id, hash FROM activity ORDER BY id DESC LIMIT 1`).Scan(&w.lastID, &w.prev)
	if err == nil {
		var head sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaHead).Scan(&head); err == nil && head.Int64 > w.lastID {
			w.lastID = head.Int64 // the newest rows were removed: the gap shows
		}
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	w.lastID, w.prev = 0, genesis
	var pruned, head sql.NullInt64
	var h []byte
	for k, dst := range map[string]any{metaPruned: &pruned, metaPrunedHash: &h, metaHead: &head} {
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, k).Scan(dst); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	w.lastID = pruned.Int64
	if len(h) == len(genesis) {
		w.prev = h
	}
	if head.Int64 > w.lastID {
		w.lastID = head.Int64 // rows after the pruned ones were removed: the gap shows
	}
	return nil
}

// sealAll seals what was written and not sealed yet, whether or not
// SealEvery has passed: Flush and Close.
func (w *writer) sealAll(ctx context.Context) {
	if w.sealer == nil || !w.sealer.dirty {
		return
	}
	if err := w.sealNow(ctx, 0, nil, false); err != nil {
		w.l.log.Warn("activity: sealing the record", "err", err)
	}
}

// masker is the masker for now, with mcptray's secrets as Secrets last
// gave them.
func (w *writer) masker(ctx context.Context) *masker {
	now := time.Now()
	if w.l.secretsStale.Swap(false) || w.mask == nil || now.Sub(w.maskedAt) >= w.l.opts.SecretsEvery {
		var known []string
		if w.l.opts.Secrets != nil {
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			known = w.l.opts.Secrets(sctx)
			cancel()
		}
		w.mask, w.maskedAt = newMasker(known), now
	}
	return w.mask
}

// entry makes the row of it, its arguments shaped or masked.
func (w *writer) entry(it *item, m *masker, keep bool) Entry {
	if t := it.trust; t != nil {
		return Entry{Time: t.Time, Kind: KindTrust, App: clip(m.text(t.By), maxName), Action: TrustAction(clip(string(t.Action), maxName)),
			Target: clip(m.text(t.Target), maxName), Detail: clip(m.text(t.Detail), maxReason)}
	}
	c := &it.call
	e := Entry{Time: c.Time, Kind: KindCall, App: clip(m.text(c.App), maxName), Face: c.Face,
		Server: clip(c.Server, maxName), Tool: clip(c.Tool, maxName), Duration: c.Duration,
		Outcome: c.Outcome, Reason: clip(m.text(c.Reason), maxReason), Decision: c.Decision, ResultSize: c.ResultSize}
	// Masking reads every byte (leaks.go): arguments far too long to be
	// kept keep their shape without it.
	if keep && len(c.Arguments) <= 2*maxKept {
		if a := keptOf(c.Arguments, m); len(a) <= maxKept {
			e.Arguments, e.ArgumentsKept = a, true
			return e
		}
	}
	e.Arguments = clip(shapeOf(c.Arguments, m), maxKept)
	return e
}

// clip cuts s to at most n bytes, at a character's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// write writes batch in one transaction, each row chained to the one
// before. When that fails (another process wrote rows meanwhile: a
// command run while no mcptray ran), it reads where the chain stands and
// tries once more.
func (w *writer) write(ctx context.Context, batch []item) {
	err := w.tryWrite(ctx, batch)
	if err != nil {
		if lerr := w.load(ctx); lerr == nil {
			err = w.tryWrite(ctx, batch)
		}
	}
	if err != nil {
		w.l.log.Warn("activity: writing the record", "rows", len(batch), "err", err)
	}
}

// prepared is the statement q, prepared once for the writer's life: each
// batch prepared its three statements anew, parsing them each time.
func (w *writer) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := w.stmts[q]; st != nil {
		return st, nil
	}
	st, err := w.l.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[q] = st
	return st, nil
}

// close closes the writer's statements.
func (w *writer) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// tryWrite writes batch in one transaction.
func (w *writer) tryWrite(ctx context.Context, batch []item) error {
	m := w.masker(ctx)
	keep := w.l.Settings().KeepArguments
	lastID, prev := w.lastID, w.prev
	var newest, insert, head *sql.Stmt
	for q, dst := range map[string]**sql.Stmt{
		`SELECT id, hash FROM activity ORDER BY id DESC LIMIT 1`:                                &newest,
		`INSERT INTO activity (` + columns + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`: &insert,
		`INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`:                                &head,
	} {
		var err error
		if *dst, err = w.prepared(ctx, q); err != nil {
			return err
		}
	}
	err := func() error {
		tx, err := w.l.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// The chain goes on from the newest row, whoever wrote it: a
		// command run while no mcptray ran may have (the transaction
		// holds the write lock from here). A newest row older than the
		// one this writer wrote last means rows were removed: the gap
		// stays, for Verify to see.
		var id int64
		var hash []byte
		switch err := tx.StmtContext(ctx, newest).QueryRowContext(ctx).Scan(&id, &hash); {
		case err == nil:
			if id > lastID {
				lastID, prev = id, hash
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		st := tx.StmtContext(ctx, insert)
		for i := range batch {
			e := w.entry(&batch[i], m, keep)
			lastID++
			e.ID, e.prev = lastID, prev
			e.hash = hashOf(w.chainKey(), prev, &e)
			if _, err := st.ExecContext(ctx, e.ID, e.Time.UnixNano(), e.Kind, e.App, e.Face, e.Server, e.Tool, int64(e.Duration),
				e.Outcome, e.Reason, e.Decision, e.ResultSize, e.Arguments, e.ArgumentsKept, e.Action, e.Target, e.Detail,
				e.prev, e.hash); err != nil {
				return err
			}
			prev = e.hash
		}
		if _, err := tx.StmtContext(ctx, head).ExecContext(ctx, metaHead, lastID); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		return err
	}
	w.lastID, w.prev = lastID, bytes.Clone(prev)
	if w.sealer != nil {
		w.sealer.dirty = true
	}
	return nil
}
