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
//   - of the seals older than trimKeepAll, those between two seals kept
//     whose numbers are the multiples of trimBlock around them: a seal
//     vouches for every row before its own, so the block's last seal
//     vouches for what the dropped ones did;
//
// never a break (Seal.Break), a reset, nor the newest. The file is written
// anew with the seals kept and one new seal, which declares the drop: how
// many seals numbered below it trims have dropped in all (seal.Dropped).
// Verify (gapProblems, trimmedGap) then takes a run of missing seals as
// trimmed only when the newest trim's seal declares exactly as many as
// are missing so, and each run is one a trim makes: the seal after it
// covers only rows that are gone from the file, or the run lies inside
// one block of trimBlock numbers, between two seals kept.
//
// A trim's seal is made with the sealing state's key, as every seal is:
// whoever takes that state can declare a trim too, as they can declare
// that retention deleted the oldest rows. What the rule leaves them: the
// rows really deleted, and the seals made since the last multiple of
// trimBlock before they took the state (at most trimBlock-1 seals, a few
// minutes of a busy mcptray), as the rows written after the last seal
// were always theirs. A seal before that one, and every row it vouches
// for, stays proven; nor does a trim's time count, which they could
// write.

const (
	// trimBlock: seals are thinned inside blocks of this many numbers,
	// the seal numbered a multiple of it kept.
	trimBlock = 64
	// trimKeepAll: the writer keeps every seal younger than this.
	trimKeepAll = 24 * time.Hour
	// trimAtLeast: a seals file smaller than this is not trimmed.
	trimAtLeast = 256 << 10
)

// planTrim says which of seals (the seals file's, in order) a trim made
// at now keeps, pruned being the last row retention deleted, and how
// many it drops.
func planTrim(seals []seal, now time.Time, pruned int64) (keep []bool, drop int64) {
	n := len(seals)
	keep = make([]bool, n)
	// anchor: the newest seal of deleted rows only, kept so that the
	// seals before it go as covering deleted rows too.
	anchor := -1
	for i := range n - 1 {
		if seals[i].Head <= pruned {
			anchor = i
		}
	}
	for i, s := range seals {
		keep[i] = i == n-1 || s.Break != "" || s.Reset != "" || s.Head > pruned || i == anchor
	}
	// ends are the seals numbered a multiple of trimBlock that are kept.
	ends := map[int64]bool{}
	for i, s := range seals {
		if keep[i] && s.N%trimBlock == 0 {
			ends[s.N] = true
		}
	}
	for i, s := range seals {
		if !keep[i] {
			drop++
			continue
		}
		if i == n-1 || s.Break != "" || s.Reset != "" || s.N%trimBlock == 0 || now.Sub(time.Unix(0, s.Time)) < trimKeepAll {
			continue
		}
		// Dropped when the block's two ends stay: the run it leaves is
		// inside the block.
		lo := s.N / trimBlock * trimBlock
		if ends[lo] && ends[lo+trimBlock] {
			keep[i] = false
			drop++
		}
	}
	return keep, drop
}

// trimmedGap says whether seals missing between prev (nil: before the
// first seal left) and next can be ones that trims dropped, gone being
// the last row not in the file: next covers only rows that are gone, or
// prev and next are inside one block of trimBlock numbers.
func trimmedGap(prev *seal, next seal, gone int64) bool {
	if next.Head <= gone {
		return true
	}
	return prev != nil && next.N <= prev.N/trimBlock*trimBlock+trimBlock
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
