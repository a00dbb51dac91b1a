package activity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Starting the record anew, on purpose (mcptray activity reset). Deleting
// the file by hand reads as what it is, the record replaced (Verify says
// so, from the seals and the keychain); a reset is the person's own act,
// said three times over: the seal made before the rows go declares it
// (seal.Reset, with how far it deleted, as retention's deletions are
// declared), and the new record's first row is a trust decision that says
// who started it anew and how many rows went. Verify then proves the new
// rows, and says that the record was reset, when and by whom.
//
// The keys and the seals go on: a reset is not a new record id, so that
// a file put in its place still reads as replaced, and whoever holds the
// sealing state could declare a reset as they could declare retention's
// deletions; that is why Verify says each reset in words.

// RecordReset: the person started the activity record anew; Detail says
// how many rows went.
const RecordReset TrustAction = "activity-reset"

// resetReq is a Reset handed to the writer.
type resetReq struct {
	by   string
	done chan resetDone
}

type resetDone struct {
	deleted int64 // the last row there was
	err     error
}

// Reset starts the record anew: every row is deleted, the deletion sealed
// as a reset by by (who asked: "the command line"), and the new record's
// first row says so. It returns the last row there was (0: none). The
// Log must be open for writing.
func (l *Log) Reset(ctx context.Context, by string) (deleted int64, err error) {
	if l.wake == nil {
		return 0, errors.New("the activity record is open only to read it")
	}
	req := resetReq{by: by, done: make(chan resetDone, 1)}
	select {
	case l.resets <- req:
	case <-l.done:
		return 0, errors.New("the activity record is closed")
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case d := <-req.done:
		return d.deleted, d.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// reset deletes every row, sealing it as a reset first, and writes the
// new record's first row.
func (w *writer) reset(ctx context.Context, by string) (int64, error) {
	if w.sealer == nil {
		// A sealed record whose keys cannot be had now: the reset could
		// not be sealed, and would read as rows deleted by someone else.
		if record, err := w.l.fileRecord(ctx); err != nil || record != "" {
			return 0, errors.New("the record is sealed and its keys could not be read from your keychain (is it locked?): a reset now could not say that it was yours")
		}
	}
	unlock, err := w.lockSeals(ctx)
	if err != nil {
		return 0, err
	}
	tx, err := w.l.db.BeginTx(ctx, nil)
	if err != nil {
		unlock()
		return 0, err
	}
	defer tx.Rollback()
	var id int64
	var hash []byte
	switch err := tx.QueryRowContext(ctx, `SELECT id, hash FROM activity ORDER BY id DESC LIMIT 1`).Scan(&id, &hash); {
	case errors.Is(err, sql.ErrNoRows):
		id, hash = w.lastID, w.prev // retention left none: the last it deleted
	case err != nil:
		unlock()
		return 0, err
	}
	if w.sealer != nil {
		if err := w.sealWith(ctx, tx, id, hash, false, &sealExtra{reset: by}); err != nil {
			unlock()
			return 0, fmt.Errorf("sealing the reset: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM activity`); err != nil {
		unlock()
		return 0, err
	}
	for k, v := range map[string]any{metaPruned: id, metaPrunedHash: hash, metaHead: id} {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, k, v); err != nil {
			unlock()
			return 0, err
		}
	}
	err = tx.Commit()
	unlock()
	if err != nil {
		return 0, err
	}
	w.lastID, w.prev = id, hash
	detail := "the record before it was deleted"
	if id > 0 {
		detail = fmt.Sprintf("%s before it %s deleted", rowsWords(1, id), were(1, id))
	}
	w.write(ctx, []item{{trust: &Trust{Time: w.l.opts.Now(), Action: RecordReset, By: by, Detail: detail}}})
	w.sealAll(ctx)
	for _, q := range []string{`PRAGMA incremental_vacuum`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := w.l.db.ExecContext(ctx, q); err != nil {
			w.l.log.Debug("activity: "+q, "err", err)
		}
	}
	return id, nil
}
