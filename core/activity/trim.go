package activity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"
)

// Trimming the seals file. One seal every SealEvery of activity would
// grow it by some 250 bytes a seal for ever (a busy year: over a
// gigabyte). So, as retention runs, once the file has doubled since its
// last trim, the writer drops:
//
//   - the seals that cover only rows retention deleted (their newest row
//     is at or before the last row deleted), but the newest of them;
//   - of the seals older than trimKeepAll, all but the last of each hour,
//     and beyond trimHourly, of each day: a seal vouches for every row
//     before its own, so the one kept vouches for what the dropped ones
//     did;
//
// never the first seal left, nor a break (Seal.Break), nor the newest.
// The file is written anew with the seals kept and one new seal, which
// declares the drop: how many seals numbered below it trims have dropped
// in all (seal.Dropped). Verify (checkSeals, trimmedGap) then takes a
// run of missing seals as trimmed only when the newest such seal's count
// is exactly what is missing, and each run is one a trim makes: its next
// seal covers only deleted rows, or it lies between two seals kept, both
// older than trimKeepAll when the trim was made. A seal removed by hand
// still shows; a young one always does.
//
// A trim's seal is made with the sealing state's key, as every seal is:
// whoever takes that state can declare a trim too, as they can declare
// that retention deleted the oldest rows. What they cannot do is make a
// trim drop a seal younger than trimKeepAll, nor change a row that a kept
// seal vouches for.

const (
	// trimKeepAll: seals younger than this are all kept.
	trimKeepAll = 24 * time.Hour
	// trimHourly: seals younger than this keep one an hour, older ones
	// one a day.
	trimHourly = 30 * 24 * time.Hour
	// trimAtLeast: a seals file smaller than this is not trimmed.
	trimAtLeast = 256 << 10
)

// bucket is the hour or the day, by the trim's time now, that the seal
// made at t shares with the seals it may stand for.
func bucket(t, now time.Time) int64 {
	if now.Sub(t) < trimHourly {
		return t.Unix() / 3600
	}
	return -(t.Unix()/86400 + 1) // days, apart from hours
}

// planTrim says which of seals (the seals file's, in order) a trim made
// at now keeps, pruned being the last row retention deleted, and how
// many it drops.
func planTrim(seals []seal, now time.Time, pruned int64) (keep []bool, drop int64) {
	keep = make([]bool, len(seals))
	n := len(seals)
	if n == 0 {
		return keep, 0
	}
	// anchor: the newest seal of deleted rows only, kept so that the
	// seals before it go as covering deleted rows too.
	anchor := -1
	for i := range n - 1 {
		if seals[i].Head <= pruned {
			anchor = i
		}
	}
	old := func(s seal) bool { return now.Sub(time.Unix(0, s.Time)) >= trimKeepAll }
	firstLeft := true // the first seal the trim leaves
	for i, s := range seals {
		switch {
		case i == n-1, s.Break != "", s.Reset != "":
			keep[i] = true
		case s.Head <= pruned:
			keep[i] = i == anchor
		case firstLeft:
			keep[i] = true
		default:
			next := seals[i+1]
			// Dropped only for a later seal kept of the same hour or
			// day, older than trimKeepAll too.
			keep[i] = !old(s) || !old(next) || bucket(time.Unix(0, next.Time), now) != bucket(time.Unix(0, s.Time), now) ||
				next.Head <= pruned
		}
		if keep[i] {
			firstLeft = false
		} else {
			drop++
		}
	}
	return keep, drop
}

// trimmedGap says whether seals missing between prev (nil: before the
// first seal left) and next can be ones that the trim whose seal is d
// dropped: next covers only rows retention deleted by then, or prev and
// next were both older than trimKeepAll when d was made.
func trimmedGap(prev *seal, next, d seal) bool {
	if next.Head <= d.Pruned {
		return true
	}
	at := time.Unix(0, d.Time)
	return prev != nil && at.Sub(time.Unix(0, next.Time)) >= trimKeepAll
}

// trimSeals trims the seals file when it has doubled since its last trim
// (and is at least trimAtLeast): see above.
func (w *writer) trimSeals(ctx context.Context) error {
	s := w.sealer
	if s == nil {
		return nil
	}
	path := sealsPath(w.l.opts.Path)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < max(w.l.opts.trimAt, 2*s.trimmedSize) {
		return nil
	}
	unlock, err := w.lockSeals(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	seals, lines, bad, err := readSeals(w.l.opts.Path)
	if err != nil {
		return err
	}
	if bad > 0 {
		// Writing the file anew would drop what is not a seal: Verify
		// is to go on saying that it was edited.
		return errors.New("the seals file has lines that are not seals; it is not trimmed")
	}
	tx, err := w.l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var pruned sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaPruned).Scan(&pruned); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	keep, drop := planTrim(seals, w.l.opts.Now(), pruned.Int64)
	if drop == 0 {
		s.trimmedSize = fi.Size()
		return nil
	}
	var before int64 // what trims dropped before this one
	for i := len(seals) - 1; i >= 0; i-- {
		if seals[i].Dropped > 0 {
			before = seals[i].Dropped
			break
		}
	}
	kept := make([]string, 0, len(lines)-int(drop))
	for i, l := range lines {
		if keep[i] {
			kept = append(kept, l)
		}
	}
	if err := w.sealWith(ctx, tx, 0, nil, false, &sealExtra{keep: kept, dropped: before + drop}); err != nil {
		return fmt.Errorf("sealing the trim: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.trimmedSize = s.fileSize
	w.l.log.Debug("activity: trimmed the seals file", "dropped", drop, "kept", len(kept))
	return nil
}
