package activity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Retention: rows older than the settings' days go, then the oldest rows
// while the file's pages hold more than its size; always the oldest rows
// (ids 1…N), so that the rows left are still one chain. The file is made
// with auto_vacuum=INCREMENTAL, so the pages freed are given back.

// pruneEvery is how often retention runs while mcptray runs (and at start,
// and whenever the settings change).
const pruneEvery = 10 * time.Minute

// prune applies the retention: rows older than its days go, then the
// oldest rows while the file is larger than its size. Each deletion takes
// the oldest rows up to one, and remembers that one's id and hash, so
// that the chain still verifies.
func (w *writer) prune(ctx context.Context) {
	s := w.l.Settings()
	cutoff := w.l.opts.Now().Add(-time.Duration(s.days()) * 24 * time.Hour).UnixNano()
	var upTo sql.NullInt64
	if err := w.l.db.QueryRowContext(ctx, `SELECT max(id) FROM activity WHERE time < ?`, cutoff).Scan(&upTo); err != nil {
		w.l.log.Warn("activity: applying the retention", "err", err)
		return
	}
	deleted := false
	if upTo.Valid {
		if err := w.deleteUpTo(ctx, upTo.Int64); err != nil {
			w.l.log.Warn("activity: deleting old rows", "err", err)
			return
		}
		deleted = true
	}
	for range 20 {
		used, err := w.used(ctx)
		if err != nil {
			w.l.log.Warn("activity: measuring the record", "err", err)
			return
		}
		if used <= s.maxBytes() {
			break
		}
		// Delete the oldest share of the rows that brings the file to 90%
		// of its size, at least one row.
		var first, last sql.NullInt64
		if err := w.l.db.QueryRowContext(ctx, `SELECT min(id), max(id) FROM activity`).Scan(&first, &last); err != nil || !first.Valid {
			break
		}
		share := 1 - 0.9*float64(s.maxBytes())/float64(used)
		n := max(int64(float64(last.Int64-first.Int64+1)*share), 1)
		if err := w.deleteUpTo(ctx, first.Int64+n-1); err != nil {
			w.l.log.Warn("activity: deleting the oldest rows", "err", err)
			return
		}
		deleted = true
	}
	if err := w.trimSeals(ctx); err != nil {
		w.l.log.Warn("activity: trimming the seals file", "err", err)
	}
	if deleted {
		// Give the freed pages back to the file system.
		for _, q := range []string{`PRAGMA incremental_vacuum`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
			if _, err := w.l.db.ExecContext(ctx, q); err != nil {
				w.l.log.Debug("activity: "+q, "err", err)
			}
		}
	}
}

// deleteUpTo deletes the rows up to id (the last row is never deleted
// beyond what the writer knows of it), remembering the last one deleted.
func (w *writer) deleteUpTo(ctx context.Context, id int64) error {
	id = min(id, w.lastID)
	unlock, err := w.lockSeals(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := w.l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var hash []byte
	err = tx.QueryRowContext(ctx, `SELECT id, hash FROM activity WHERE id <= ? ORDER BY id DESC LIMIT 1`, id).Scan(&id, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	// Sealed before the rows go: the seal says how far retention deleted,
	// so that Verify tells its deletion from anyone else's.
	if err := w.sealIn(ctx, tx, id, hash, false); err != nil {
		return fmt.Errorf("sealing what retention deletes: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM activity WHERE id <= ?`, id); err != nil {
		return err
	}
	for k, v := range map[string]any{metaPruned: id, metaPrunedHash: hash} {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, k, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// used is how many bytes the record's pages hold.
func (w *writer) used(ctx context.Context) (int64, error) {
	var pages, free, size int64
	for q, dst := range map[string]*int64{`PRAGMA page_count`: &pages, `PRAGMA freelist_count`: &free, `PRAGMA page_size`: &size} {
		if err := w.l.db.QueryRowContext(ctx, q).Scan(dst); err != nil {
			return 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	return (pages - free) * size, nil
}
