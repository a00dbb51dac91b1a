package activity

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/secret"
)

// What Verify finds, and says in words.

// ProblemKind is what was done to the record.
type ProblemKind string

const (
	// Changed: a row is not as it was written.
	Changed ProblemKind = "changed"
	// Removed: rows were removed from the middle.
	Removed ProblemKind = "removed"
	// Truncated: the newest sealed rows are gone (deleted, or the file put
	// back to an older copy).
	Truncated ProblemKind = "truncated"
	// Emptied: every row the seals vouch for is gone.
	Emptied ProblemKind = "emptied"
	// FrontDeleted: the oldest rows were deleted beyond what retention
	// deleted.
	FrontDeleted ProblemKind = "front-deleted"
	// Rewritten: a sealed row's hash is not the one sealed: rows were
	// changed or removed and the chain recomputed.
	Rewritten ProblemKind = "rewritten"
	// Replaced: the file is not the record that was sealed.
	Replaced ProblemKind = "replaced"
	// SealsAltered: the seals file was cut back, replaced, or a seal in it
	// changed.
	SealsAltered ProblemKind = "seals-altered"
	// Break: a writer found the record not as sealed, sealed that, and
	// went on.
	Break ProblemKind = "break"
	// Unkeyed: rows after rows chained with the record's key are chained
	// without it, with plain SHA-256, which anyone can recompute: changed
	// or added by a program that did not have the key.
	Unkeyed ProblemKind = "unkeyed"
)

// Problem is one thing Verify found done to the record.
type Problem struct {
	Kind ProblemKind `json:"kind"`
	// ID is the row concerned (the first of them); To the last, if more.
	ID int64 `json:"id,omitempty"`
	To int64 `json:"to,omitempty"`
	// Removed says that rows were removed (Removed, Truncated,
	// FrontDeleted, Emptied), rather than changed.
	Removed bool `json:"removed,omitempty"`
	// Words say it for people.
	Words string `json:"words"`
}

func (p *Problem) String() string { return p.Words }

// VerifyResult is what Verify found.
type VerifyResult struct {
	// Rows is how many rows were checked.
	Rows int64 `json:"rows"`
	// FirstID and LastID are the first and last row checked, FirstTime and
	// LastTime when they were written.
	FirstID   int64     `json:"firstId,omitempty"`
	LastID    int64     `json:"lastId,omitempty"`
	FirstTime time.Time `json:"firstTime,omitzero"`
	LastTime  time.Time `json:"lastTime,omitzero"`
	// Problem is the first thing found wrong; nil when none was.
	Problem *Problem `json:"problem,omitempty"`
	// Problems are all of them.
	Problems []Problem `json:"problems,omitempty"`
	// Sealed says that the record's keys were in the keychain, so that
	// its seals could be checked; NotSealed says why not, when not.
	Sealed    bool   `json:"sealed"`
	NotSealed string `json:"notSealed,omitempty"`
	// KeyGiven says that the seals were checked with a verification key
	// given to Verify (Options.VerifyKey), not with the keychain's.
	KeyGiven bool `json:"keyGiven,omitempty"`
	// Seals is how many seals were checked; SealedThrough the newest row
	// the newest seal vouches for, SealedAt when it was made, SealEvery
	// how often the writer sealed.
	Seals         int64         `json:"seals,omitempty"`
	SealedThrough int64         `json:"sealedThrough,omitempty"`
	SealedAt      time.Time     `json:"sealedAt,omitzero"`
	SealEvery     time.Duration `json:"sealEvery,omitempty"`
	// SealedTime is when the newest row the seals vouch for was written.
	SealedTime time.Time `json:"sealedTime,omitzero"`
	// Unkeyed is how many rows were chained with plain SHA-256 (written
	// before the record was sealed, or without the keychain); Unchecked
	// how many keyed rows could not be checked for want of the key.
	Unkeyed   int64 `json:"unkeyed,omitempty"`
	Unchecked int64 `json:"unchecked,omitempty"`
	// SealsDropped is how many old seals trims dropped from the seals
	// file, as their seals declare (trim.go).
	SealsDropped int64 `json:"sealsDropped,omitempty"`
	// Resets are the times the person started the record anew
	// (reset.go), oldest first.
	Resets []Reset `json:"resets,omitempty"`
}

// Reset is one time the person started the record anew.
type Reset struct {
	Time time.Time `json:"time"`
	// By is who did: "the command line".
	By string `json:"by"`
	// Rows is the last row there was before; all were deleted.
	Rows int64 `json:"rows"`
}

func (r *VerifyResult) add(p Problem) {
	p.Removed = p.Kind == Removed || p.Kind == Truncated || p.Kind == FrontDeleted || p.Kind == Emptied
	r.Problems = append(r.Problems, p)
	r.Problem = &r.Problems[0]
}

// Verify checks the record: each row's hash and its link to the row
// before, then, when the keychain holds the record's keys, every seal and
// the rows against them: that the rows the seals vouch for are all there
// and as sealed, that no more were deleted from the start than retention
// deleted, and that the file is the record sealed. It reads the keychain,
// then the seals, then the rows, so that a seal made meanwhile is of rows
// it reads.
func (l *Log) Verify(ctx context.Context) (VerifyResult, error) {
	var res VerifyResult
	var chainKey []byte
	var v verifier
	var st sealState
	var seals []seal
	var lines []string
	var gaps []sealGap
	err := l.readKeys(ctx, &v, &st)
	if l.opts.VerifyKey != nil {
		var perr error
		if v, perr = parseKey(l.opts.VerifyKey); perr != nil {
			return res, perr
		}
		res.KeyGiven = true
		if err != nil || st.Record != v.Record {
			// The keychain's state is only a further check, when it is
			// this record's.
			st = sealState{}
		}
		err = nil
	}
	switch {
	case l.opts.Keys == nil && !res.KeyGiven:
		res.NotSealed = "no keychain was given to check it with"
	case errors.Is(err, secret.ErrNotFound):
		res.NotSealed = "mcptray has no keys for it in your keychain: it was written where there was no keychain"
		if record, _ := l.fileRecord(ctx); record != "" {
			res.NotSealed = "it was sealed, but your keychain has no keys for a record in this place: it was moved or copied here from another folder or computer, or its keys were removed from the keychain"
			if st.Record == record {
				res.NotSealed = "its verification key is not in your keychain: you keep it elsewhere; give it with --key FILE"
			}
		}
	case secret.IsUnavailable(err):
		res.NotSealed = err.Error()
	case err != nil:
		return res, err
	default:
		res.Sealed, chainKey = true, chainKeyOf(v.Seed)
		var bad int
		var err error
		if seals, lines, bad, err = readSeals(l.opts.Path); err != nil {
			return res, fmt.Errorf("reading the seals: %w", err)
		}
		if bad > 0 {
			res.add(Problem{Kind: SealsAltered, Words: fmt.Sprintf("%d lines of the seals file are not seals: it was edited", bad)})
		}
		seals, gaps = checkSeals(&res, v, st, seals, lines)
	}

	tx, err := l.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	defer tx.Rollback()
	var record sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaRecord).Scan(&record); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	// The sealed rows' hashes, to compare once the rows are read.
	want := map[int64][]byte{}
	for _, s := range seals {
		if s.Head > s.Pruned {
			want[s.Head] = nil
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+columns+` FROM activity ORDER BY id`)
	if err != nil {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	defer rows.Close()
	var sealedHead int64 // the newest seal's row, whose time is said
	if len(seals) > 0 {
		sealedHead = seals[len(seals)-1].Head
	}
	var prevHash, firstPrev []byte
	var prevID int64
	chainBroken := false
	// keyed: a row chained with the record's key (or one whose key is not
	// at hand) came; unkeyedFrom–unkeyedTo: plain rows after such a row.
	keyed := false
	var unkeyedFrom, unkeyedTo int64
	for rows.Next() {
		var e Entry
		if err := scanEntry(rows, &e); err != nil {
			return res, fmt.Errorf("reading the activity record: %w", err)
		}
		res.Rows++
		if res.FirstID == 0 {
			res.FirstID, res.FirstTime, firstPrev = e.ID, e.Time, e.prev
		}
		res.LastID, res.LastTime = e.ID, e.Time
		if e.ID <= sealedHead {
			res.SealedTime = e.Time
		}
		if _, ok := want[e.ID]; ok {
			want[e.ID] = e.hash
		}
		if chainBroken {
			continue
		}
		switch {
		case prevHash != nil && e.ID != prevID+1:
			res.add(Problem{Kind: Removed, ID: prevID + 1, To: e.ID - 1, Words: rowsWords(prevID+1, e.ID-1) + " " + were(prevID+1, e.ID-1) + " removed"})
			chainBroken = true
		case prevHash != nil && !bytes.Equal(e.prev, prevHash):
			res.add(Problem{Kind: Changed, ID: e.ID, Words: fmt.Sprintf("row %d was changed", e.ID)})
			chainBroken = true
		case chainKey != nil && hmac.Equal(hashOf(chainKey, e.prev, &e), e.hash):
			keyed = true
		case bytes.Equal(hashOf(nil, e.prev, &e), e.hash):
			res.Unkeyed++
			if keyed {
				// Once keyed, always keyed: mcptray chains a sealed
				// record's rows with its key. A plain row after a keyed
				// one is anyone's to write.
				unkeyedFrom = cmp.Or(unkeyedFrom, e.ID)
				unkeyedTo = e.ID
			}
		case chainKey == nil && record.Valid:
			res.Unchecked++ // a sealed record's row, and its key is not at hand
			keyed = true
		default:
			res.add(Problem{Kind: Changed, ID: e.ID, Words: fmt.Sprintf("row %d was changed", e.ID)})
			chainBroken = true
		}
		prevHash, prevID = e.hash, e.ID
	}
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	rows.Close()
	if unkeyedFrom > 0 {
		res.add(Problem{Kind: Unkeyed, ID: unkeyedFrom, To: unkeyedTo,
			Words: fmt.Sprintf("%s, after rows chained with the record's key, %s chained without the record's key: changed or added by a program that did not have it",
				rowsWords(unkeyedFrom, unkeyedTo), were(unkeyedFrom, unkeyedTo))})
	}
	if len(seals) > 0 {
		// Seals a trim dropped because they covered only deleted rows:
		// the rows must be gone.
		gone := seals[len(seals)-1].Pruned
		if res.Rows > 0 {
			gone = res.FirstID - 1
		}
		var problems []Problem
		res.SealsDropped, problems = gapProblems(seals, gaps, gone)
		for _, p := range problems {
			res.add(p)
		}
	}
	if res.Sealed && (record.Valid || len(seals) > 0) && record.String != v.Record {
		res.add(Problem{Kind: Replaced, Words: "the file is not the record mcptray sealed: it was replaced by another one"})
	}
	if !res.Sealed || len(seals) == 0 {
		// Only the meta table's word, which whoever writes the file can
		// change: the newest row's id, and the last id retention deleted.
		head, pruned, err := metaInts(ctx, tx)
		if err != nil {
			return res, err
		}
		switch {
		case res.Rows > 0 && res.FirstID > pruned+1:
			res.add(Problem{Kind: FrontDeleted, ID: pruned + 1, To: res.FirstID - 1, Words: rowsWords(pruned+1, res.FirstID-1) + " " + were(pruned+1, res.FirstID-1) + " removed"})
		case head > res.LastID && head > pruned:
			from := max(res.LastID, pruned) + 1
			res.add(Problem{Kind: Truncated, ID: from, To: head, Words: rowsWords(from, head) + " " + were(from, head) + " removed"})
		}
		return res, nil
	}

	last := seals[len(seals)-1]
	res.SealedAt, res.SealEvery = time.Unix(0, last.Time), time.Duration(last.Every)*time.Millisecond
	res.SealedThrough = last.Head
	sealedAt := time.Unix(0, last.Time).Local().Format("2 Jan 15:04:05")
	switch {
	case last.Head > last.Pruned && res.Rows == 0:
		res.add(Problem{Kind: Emptied, ID: last.Pruned + 1, To: last.Head,
			Words: fmt.Sprintf("every row was deleted: the seals vouch for %s, sealed by %s", rowsWords(last.Pruned+1, last.Head), sealedAt)})
	case last.Head > last.Pruned && res.LastID < last.Head:
		from := max(res.LastID, last.Pruned) + 1
		res.add(Problem{Kind: Truncated, ID: from, To: last.Head,
			Words: fmt.Sprintf("%s, sealed by %s, %s missing from the end: deleted, or the file was put back to an older copy", rowsWords(from, last.Head), sealedAt, map[bool]string{true: "is", false: "are"}[from == last.Head])})
	}
	if res.Rows > 0 && res.FirstID > last.Pruned+1 {
		res.add(Problem{Kind: FrontDeleted, ID: last.Pruned + 1, To: res.FirstID - 1,
			Words: fmt.Sprintf("%s %s deleted from the start, and not by retention (%s)", rowsWords(last.Pruned+1, res.FirstID-1), were(last.Pruned+1, res.FirstID-1), prunedWords(last.Pruned))})
	}
	if res.Rows > 0 && res.FirstID == last.Pruned+1 && last.Pruned > 0 && !bytes.Equal(firstPrev, last.PrunedHash) {
		res.add(Problem{Kind: Changed, ID: res.FirstID, Words: fmt.Sprintf("row %d does not follow the last row retention deleted", res.FirstID)})
	}
	// The seals since the last break describe this file; each sealed row
	// still there must be as sealed.
	from := 0
	for i, s := range seals {
		if s.Break != "" {
			from = i
		}
	}
	for _, s := range seals[from:] {
		h, ok := want[s.Head]
		if !ok || h == nil || bytes.Equal(h, s.Hash) {
			continue
		}
		res.add(Problem{Kind: Rewritten, ID: s.Head, Words: fmt.Sprintf("row %d is not the row sealed on %s: rows up to it were changed or removed and the chain recomputed",
			s.Head, time.Unix(0, s.Time).Local().Format("2 Jan 15:04:05"))})
		break
	}
	return res, nil
}

// readKeys reads the record's keychain items; a missing sealing state is
// an empty one (the record was never sealed, or a writer stopped between
// the two).
func (l *Log) readKeys(ctx context.Context, v *verifier, st *sealState) error {
	if l.opts.Keys == nil {
		return nil
	}
	err := getJSON(ctx, l.opts.Keys, l.items.verify, v)
	if errors.Is(err, secret.ErrNotFound) {
		// Not moved to its own items yet: a record sealed by an older
		// mcptray, whose writer has not run since.
		switch found, lerr := l.legacyFor(ctx, v, st); {
		case lerr != nil:
			return lerr
		case found:
			return nil
		}
	}
	if err != nil {
		if errors.Is(err, secret.ErrNotFound) {
			// The state says whether the key is kept elsewhere (ForgetKey).
			_ = getJSON(ctx, l.opts.Keys, l.items.state, st)
		}
		return err
	}
	if err := getJSON(ctx, l.opts.Keys, l.items.state, st); err != nil && !errors.Is(err, secret.ErrNotFound) {
		return err
	}
	return nil
}

// checkSeals checks each seal's MAC with its key from the seed, that they
// run on with no gap, and that the file holds the last seal the keychain
// remembers; it reports breaks, and returns the seals that hold.
func checkSeals(res *VerifyResult, v verifier, st sealState, seals []seal, lines []string) ([]seal, []sealGap) {
	if len(seals) == 0 {
		if st.Next > 1 {
			res.add(Problem{Kind: SealsAltered, ID: 1, To: st.Next - 1, Words: fmt.Sprintf("the seals file was removed: the keychain says %d seals were made", st.Next-1)})
		}
		return nil, nil
	}
	var gaps []sealGap
	key := sealKeyOf(v.Seed, seals[0].N)
	good := make([]seal, 0, len(seals))
	for i, s := range seals {
		g := sealGap{from: 1, to: s.N - 1, next: s}
		if i > 0 {
			g.from, g.prev = seals[i-1].N+1, &good[len(good)-1]
			if s.N <= seals[i-1].N {
				res.add(Problem{Kind: SealsAltered, Words: fmt.Sprintf("seal %d comes after seal %d in the seals file: it was edited", s.N, seals[i-1].N)})
				break
			}
			for range s.N - seals[i-1].N - 1 {
				key = ratchet(key)
			}
		}
		if !hmac.Equal(macOf(key, v.Record, s), s.MAC) {
			res.add(Problem{Kind: SealsAltered, Words: fmt.Sprintf("seal %d was changed or forged", s.N)})
			break
		}
		if g.to >= g.from {
			gaps = append(gaps, g)
		}
		if s.Break != "" {
			res.add(Problem{Kind: Break, Words: fmt.Sprintf("on %s mcptray found the record not as it had sealed it (%s) and went on from there",
				time.Unix(0, s.Time).Local().Format("2 Jan 15:04:05"), s.Break)})
		}
		if s.Reset != "" {
			res.Resets = append(res.Resets, Reset{Time: time.Unix(0, s.Time), By: s.Reset, Rows: s.Pruned})
		}
		good = append(good, s)
		res.Seals++
		key = ratchet(key)
	}
	if st.Last != "" {
		lastN := st.Next - 1
		n := seals[len(seals)-1].N
		switch i := slices.IndexFunc(seals, func(s seal) bool { return s.N == lastN }); {
		case n < lastN:
			res.add(Problem{Kind: SealsAltered, ID: n + 1, To: lastN,
				Words: fmt.Sprintf("the seals file was cut back or put back to an older copy: seals %d to %d, which the keychain remembers, are gone", n+1, lastN)})
		case i < 0:
			res.add(Problem{Kind: SealsAltered, Words: fmt.Sprintf("seal %d, the last the keychain remembers, is not in the seals file", lastN)})
		case lines[i] != st.Last:
			res.add(Problem{Kind: SealsAltered, Words: fmt.Sprintf("seal %d is not the one the keychain remembers", lastN)})
		}
	}
	return good, gaps
}

// sealGap is a run of seals missing from the seals file, from to to,
// between prev (nil at the start) and next.
type sealGap struct {
	from, to int64
	prev     *seal
	next     seal
}

// gapProblems says which of the gaps between good, the seals that hold,
// are not what trims dropped (trim.go), and how many seals trims dropped
// as the newest trim's seal declares; gone is the last row that is not in
// the file (nor any before it).
func gapProblems(good []seal, gaps []sealGap, gone int64) (dropped int64, problems []Problem) {
	var trim *seal
	for i := len(good) - 1; i >= 0 && trim == nil; i-- {
		if good[i].Dropped > 0 {
			trim = &good[i]
		}
	}
	var trimmed int64
	for _, g := range gaps {
		if trim != nil && g.to < trim.N && trimmedGap(g.prev, g.next, min(gone, trim.Pruned)) {
			trimmed += g.to - g.from + 1
			continue
		}
		problems = append(problems, Problem{Kind: SealsAltered, Words: sealsRemoved(g.from, g.to)})
	}
	if trim == nil {
		return 0, problems
	}
	if trimmed != trim.Dropped {
		problems = append(problems, Problem{Kind: SealsAltered,
			Words: fmt.Sprintf("the seals file's trims dropped %d seals, and %d are missing where a trim would drop them: seals were removed from it", trim.Dropped, trimmed)})
	}
	return trim.Dropped, problems
}

// metaInts reads the meta table's head and pruned.
func metaInts(ctx context.Context, tx *sql.Tx) (head, pruned int64, err error) {
	for k, dst := range map[string]*int64{metaHead: &head, metaPruned: &pruned} {
		var v sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, k).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, 0, fmt.Errorf("reading the activity record: %w", err)
		}
		*dst = v.Int64
	}
	return head, pruned, nil
}

// rowsWords is "row 4" or "rows 4–9".
func rowsWords(from, to int64) string {
	if from >= to {
		return "row " + count(from)
	}
	return fmt.Sprintf("rows %s–%s", count(from), count(to))
}

// prunedWords say how far retention deleted.
func prunedWords(pruned int64) string {
	if pruned == 0 {
		return "it deleted none"
	}
	return "it deleted up to row " + count(pruned)
}

// were is "was" for one row, "were" for more.
func were(from, to int64) string {
	if from >= to {
		return "was"
	}
	return "were"
}

// count is n with thousands separated: 48,210.
func count(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Lines say what Verify found in words: what is proven and from when to
// when, what is not, and each problem.
func (r *VerifyResult) Lines() []string {
	var out []string
	day := func(t time.Time) string { return t.Local().Format("2 Jan") }
	span := func(a, b time.Time) string {
		if day(a) == day(b) {
			return day(a)
		}
		return day(a) + " – " + day(b)
	}
	switch {
	case r.Problem != nil:
		out = append(out, "The activity record was altered:")
		for _, p := range r.Problems {
			out = append(out, "  "+p.Words+".")
		}
	case r.Rows == 0 && r.Sealed:
		out = append(out, "The activity record has no rows, and its seals agree: retention deleted them all.")
	case r.Rows == 0:
		out = append(out, "The activity record has no rows.")
	case r.Sealed && r.SealedThrough >= r.FirstID:
		through := min(r.SealedThrough, r.LastID)
		keys := "with keys kept in your keychain"
		if r.KeyGiven {
			keys = "checked with the verification key you kept"
		}
		out = append(out, fmt.Sprintf("Proven: %s, %s, sealed every %s, %s (the last seal %s).",
			rowsWords(r.FirstID, through), span(r.FirstTime, r.SealedTime), everyWords(r.SealEvery), keys, r.SealedAt.Local().Format("2 Jan 15:04:05")))
		if r.LastID > through {
			out = append(out, fmt.Sprintf("%s, written after the last seal: chained, not sealed yet.", capital(rowsWords(through+1, r.LastID))))
		}
	case r.Sealed:
		out = append(out, fmt.Sprintf("Rows %s–%s, %s, are chained but not sealed yet: mcptray seals what it wrote every few seconds.",
			count(r.FirstID), count(r.LastID), span(r.FirstTime, r.LastTime)))
	default:
		out = append(out, fmt.Sprintf("Rows %s–%s, %s, are chained but not sealed: %s.", count(r.FirstID), count(r.LastID), span(r.FirstTime, r.LastTime), r.NotSealed),
			"The chain shows a row changed or removed in the middle; without a seal, rows deleted at either end, or the whole record rewritten, would not show.")
	}
	for _, rs := range r.Resets {
		what := "it had no rows"
		if rs.Rows > 0 {
			what = rowsWords(1, rs.Rows) + " were deleted"
		}
		out = append(out, fmt.Sprintf("Started anew on purpose on %s by %s: %s.", rs.Time.Local().Format("2 Jan 2006 15:04:05"), rs.By, what))
	}
	if r.Problem == nil && r.Unchecked > 0 {
		out = append(out, fmt.Sprintf("%s rows are chained with the record's key, which is in a keychain this could not read: their links were checked, not their content.", count(r.Unchecked)))
	}
	return out
}

// everyWords is how often the writer sealed: "5 s", "1.5 s", "200 ms".
func everyWords(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sealsRemoved says that seals from to to were removed: "seal 3" when
// they are one.
func sealsRemoved(from, to int64) string {
	if from == to {
		return fmt.Sprintf("seal %d was removed from the seals file", from)
	}
	return fmt.Sprintf("seals %d to %d were removed from the seals file", from, to)
}
