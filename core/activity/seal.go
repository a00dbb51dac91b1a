package activity

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/core/filelock"
	"github.com/mcptray/mcptray/core/secret"
)

// Sealing: the record's keys live in the keychain, its seals in a file
// beside it (Path + ".seals"); doc.go says why, and what each defends.
//
// The keychain keeps two items for each record, named after its file
// (itemsFor):
//
//   - the verification item (verifyItem): the record's id and its seed, a
//     random 32 bytes written once, when the record is first sealed. From
//     the seed come the chain's key (chainKeyOf) and every seal's key
//     (sealKeyOf): only Verify reads it.
//   - the sealing state (stateItem): the next seal's number and key, the
//     chain's key, and the last seal made. The writer reads and replaces it.
//
// Seal n is MAC'd with key n; key n+1 is SHA-256 of key n (ratchet), and
// the state keeps only the key of the next seal: whoever takes the state
// today can make seals from now on, but not remake an earlier one, whose
// key cannot be computed back from a later one.

// Keys is where the record keeps its keys: the operating system's keychain
// (keychain.New), a throwaway one in tests. Nil: the record is chained but
// not sealed.
type Keys = secret.Store

// items are one record's keychain items.
type items struct{ verify, state secret.Key }

// itemsFor names the items of the record at path after the file: its
// absolute path, with its folder's links resolved, hashed (a keychain
// shows the names). Two records of one person (two homes, or the tests'
// many mcptrays on one keychain) then each keep their own keys and their
// own run of seals. A record moved to another folder has no keys there,
// and Verify says so.
func itemsFor(path string) items {
	p, err := filepath.Abs(path)
	if err == nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
	}
	sum := sha256.Sum256([]byte(p))
	server := "activity-" + hex.EncodeToString(sum[:8])
	return items{verify: secret.Key{Server: server, Kind: "activity-verify"}, state: secret.Key{Server: server, Kind: "activity-seal"}}
}

// legacyItems are where the first sealed records kept their keys, one
// pair for every record of the keychain; a record finds them there once
// (adoptLegacy), when their record id is its own.
var legacyItems = items{verify: secret.Key{Server: "activity", Kind: "activity-verify"}, state: secret.Key{Server: "activity", Kind: "activity-seal"}}

// DefaultSealEvery is how often, at most, the writer seals what it wrote.
const DefaultSealEvery = 5 * time.Second

// keychainWait bounds one keychain call of the record's: a locked keychain
// may wait for the person to unlock it.
const keychainWait = 10 * time.Second

// metaRecord is the meta key of the record's id: a file whose id is not
// the one in the keychain is not the record that was sealed.
const metaRecord = "record"

// verifier is the verification item.
type verifier struct {
	Record string `json:"record"`
	Seed   []byte `json:"seed"`
}

// sealState is the sealing state.
type sealState struct {
	Record string `json:"record"`
	Next   int64  `json:"next"`  // the next seal's number
	Key    []byte `json:"key"`   // the next seal's key
	Chain  []byte `json:"chain"` // the chain's key
	Last   string `json:"last"`  // the last seal made, as its line
}

// seal is one checkpoint, one line of the seals file.
type seal struct {
	N     int64 `json:"n"`
	Time  int64 `json:"t"`     // unix nanoseconds
	Every int64 `json:"every"` // the writer's SealEvery, in milliseconds
	// Pruned is the last row retention deleted (or is about to: a seal is
	// made before the rows go), PrunedHash its hash.
	Pruned     int64  `json:"pruned"`
	PrunedHash []byte `json:"prunedHash,omitempty"`
	// Head is the newest row, Hash its hash.
	Head int64  `json:"head"`
	Hash []byte `json:"hash"`
	// Break says that the writer found the record not as the seal before
	// said it was (its newest sealed row gone or changed, or another file
	// in its place), and went on from what it found.
	Break string `json:"break,omitempty"`
	// Dropped, in a trim's seal (trim.go), is how many seals numbered
	// below it trims dropped from the seals file, this one and the ones
	// before.
	Dropped int64 `json:"dropped,omitempty"`
	// Reset says that the person started the record anew (reset.go): by
	// whom. Pruned is then the last row there was, all of them deleted.
	Reset string `json:"reset,omitempty"`
	MAC   []byte `json:"mac,omitempty"`
}

// Domain separation of the keys made from the seed and from each other.
const (
	chainLabel   = "mcptray activity chain v1"
	sealLabel    = "mcptray activity seal v1"
	ratchetLabel = "mcptray activity ratchet v1"
)

func hmacOf(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

func chainKeyOf(seed []byte) []byte { return hmacOf(seed, []byte(chainLabel)) }

// ratchet is the key of the seal after the one of k.
func ratchet(k []byte) []byte {
	h := sha256.New()
	h.Write([]byte(ratchetLabel))
	h.Write(k)
	return h.Sum(nil)
}

// sealKeyOf is seal n's key.
func sealKeyOf(seed []byte, n int64) []byte {
	k := hmacOf(seed, []byte(sealLabel))
	for i := int64(1); i < n; i++ {
		k = ratchet(k)
	}
	return k
}

// macOf is s's MAC under key, for the record named record.
func macOf(key []byte, record string, s seal) []byte {
	s.MAC = nil
	b, _ := json.Marshal(s) // numbers and bytes always encode
	return hmacOf(key, []byte(sealLabel+"\n"+record+"\n"), b)
}

func (s seal) line() string {
	b, _ := json.Marshal(s)
	return string(b)
}

func parseSeal(line string) (seal, error) {
	var s seal
	err := json.Unmarshal([]byte(line), &s)
	return s, err
}

// sealsPath is the seals file of the record at path.
func sealsPath(path string) string { return path + ".seals" }

// lockSeals takes the lock that orders two processes' seals (the running
// mcptray's and a command's): each reads the keychain's state, appends its
// seal and writes the state back under it, and the first of them makes
// the record's keys under it. SQLite's write lock does not do: a
// transaction takes it only at its first write, after the state was read.
// Nil when the record is not sealed.
func (w *writer) lockSeals(ctx context.Context) (unlock func(), err error) {
	if w.l.opts.Keys == nil {
		return func() {}, nil
	}
	return filelock.Lock(ctx, sealsPath(w.l.opts.Path)+".lock")
}

// readSeals reads the seals file: its seals, in order, and the lines that
// could not be read as one (by number).
func readSeals(path string) (seals []seal, lines []string, bad int, err error) {
	f, err := os.Open(sealsPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, 0, nil
	}
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		s, err := parseSeal(sc.Text())
		if err != nil {
			bad++
			continue
		}
		seals, lines = append(seals, s), append(lines, sc.Text())
	}
	return seals, lines, bad, sc.Err()
}

// getJSON reads a keychain item of the record's into v.
func getJSON(ctx context.Context, keys Keys, key secret.Key, v any) error {
	ctx, cancel := context.WithTimeout(ctx, keychainWait)
	defer cancel()
	b, err := keys.Get(ctx, key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("the keychain's %s item is damaged: %w", key.Kind, err)
	}
	return nil
}

func setJSON(ctx context.Context, keys Keys, key secret.Key, v any) error {
	ctx, cancel := context.WithTimeout(ctx, keychainWait)
	defer cancel()
	b, _ := json.Marshal(v)
	return keys.Set(ctx, key, b)
}

// sealer is the writer's sealing: nil when the record is not sealed.
type sealer struct {
	st       sealState
	fileSize int64 // the seals file's size after this writer's last seal
	// trimmedSize is the seals file's size after its last trim (trim.go).
	trimmedSize int64
	at          time.Time
	dirty       bool // rows were written since the last seal
}

// openSealer reads (or, the first time, makes) the record's keys, and
// seals a break when the file is not what the last seal said. Nil when
// there is no keychain: the record is then chained, not sealed.
func (w *writer) openSealer(ctx context.Context) *sealer {
	keys := w.l.opts.Keys
	if keys == nil {
		return nil
	}
	unlock, err := w.lockSeals(ctx)
	if err != nil {
		w.l.log.Warn("activity: the record is chained but not sealed", "err", err)
		return nil
	}
	defer unlock()
	s := &sealer{}
	err = getJSON(ctx, keys, w.l.items.state, &s.st)
	if errors.Is(err, secret.ErrNotFound) {
		if aerr := w.l.adoptLegacy(ctx); aerr != nil {
			w.l.log.Warn("activity: moving the record's keys to their own keychain items", "err", aerr)
		} else {
			err = getJSON(ctx, keys, w.l.items.state, &s.st)
		}
	}
	if errors.Is(err, secret.ErrNotFound) {
		err = w.newKeys(ctx, &s.st)
	}
	if err != nil {
		w.l.log.Warn("activity: the record's keys are not in the keychain; it is chained but not sealed", "err", err)
		return nil
	}
	w.sealer = s
	if err := w.sealLocked(ctx, 0, nil, true); err != nil {
		w.l.log.Warn("activity: sealing the record", "err", err)
	}
	return s
}

// newKeys makes the record's keys: a new record when there is no
// verification item, else a state that goes on from the seals file.
func (w *writer) newKeys(ctx context.Context, st *sealState) error {
	keys := w.l.opts.Keys
	var v verifier
	err := getJSON(ctx, keys, w.l.items.verify, &v)
	if errors.Is(err, secret.ErrNotFound) {
		v = verifier{Record: rand.Text(), Seed: make([]byte, 32)}
		rand.Read(v.Seed)
		if err := setJSON(ctx, keys, w.l.items.verify, v); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	next := int64(1)
	last := ""
	if seals, lines, _, err := readSeals(w.l.opts.Path); err == nil && len(seals) > 0 {
		next, last = seals[len(seals)-1].N+1, lines[len(lines)-1]
	}
	*st = sealState{Record: v.Record, Next: next, Key: sealKeyOf(v.Seed, next), Chain: chainKeyOf(v.Seed), Last: last}
	return setJSON(ctx, keys, w.l.items.state, st)
}

// fileRecord is the record id the file says it is; "" before its first
// seal.
func (l *Log) fileRecord(ctx context.Context) (string, error) {
	var record string
	err := l.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaRecord).Scan(&record)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return record, err
}

// legacyFor reads the legacy items into v and st when they are this
// record's: found says so.
func (l *Log) legacyFor(ctx context.Context, v *verifier, st *sealState) (found bool, err error) {
	record, err := l.fileRecord(ctx)
	if err != nil || record == "" {
		return false, err
	}
	var lv verifier
	switch err := getJSON(ctx, l.opts.Keys, legacyItems.verify, &lv); {
	case errors.Is(err, secret.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	case lv.Record != record:
		return false, nil // another record's
	}
	var lst sealState
	if err := getJSON(ctx, l.opts.Keys, legacyItems.state, &lst); err != nil && !errors.Is(err, secret.ErrNotFound) {
		return false, err
	}
	*v, *st = lv, lst
	return true, nil
}

// adoptLegacy moves this record's keys from the legacy items to its own,
// once; with the seals' lock held.
func (l *Log) adoptLegacy(ctx context.Context) error {
	var v verifier
	switch err := getJSON(ctx, l.opts.Keys, l.items.verify, &v); {
	case err == nil:
		return nil // its own items are there
	case !errors.Is(err, secret.ErrNotFound):
		return err
	}
	var st sealState
	found, err := l.legacyFor(ctx, &v, &st)
	if err != nil || !found {
		return err
	}
	if err := setJSON(ctx, l.opts.Keys, l.items.verify, v); err != nil {
		return err
	}
	if st.Record != "" {
		if err := setJSON(ctx, l.opts.Keys, l.items.state, st); err != nil {
			return err
		}
	}
	dctx, cancel := context.WithTimeout(ctx, keychainWait)
	defer cancel()
	return errors.Join(l.opts.Keys.Delete(dctx, legacyItems.state), l.opts.Keys.Delete(dctx, legacyItems.verify))
}

// chainKey is the key the writer chains rows with; nil when not sealed.
func (w *writer) chainKey() []byte {
	if w.sealer == nil {
		return nil
	}
	return w.sealer.st.Chain
}

// sealIfDue seals when rows were written and SealEvery has passed since
// the last seal; else it says how long until it is due (0: nothing to do).
func (w *writer) sealIfDue(ctx context.Context) time.Duration {
	s := w.sealer
	if s == nil || !s.dirty {
		return 0
	}
	if wait := w.l.opts.SealEvery - time.Since(s.at); wait > 0 {
		return wait
	}
	if err := w.sealNow(ctx, 0, nil, false); err != nil {
		w.l.log.Warn("activity: sealing the record", "err", err)
	}
	return 0
}

// sealNow seals the record as it stands: its newest row and what
// retention deleted, or (pruneTo > 0) is about to delete through pruneTo,
// whose hash is pruneHash. At the start (check), it first compares the
// file with the last seal, and says so in the seal when they differ.
func (w *writer) sealNow(ctx context.Context, pruneTo int64, pruneHash []byte, check bool) error {
	if w.sealer == nil {
		return nil
	}
	unlock, err := w.lockSeals(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return w.sealLocked(ctx, pruneTo, pruneHash, check)
}

// sealLocked is sealNow with the seals' lock held (lockSeals).
func (w *writer) sealLocked(ctx context.Context, pruneTo int64, pruneHash []byte, check bool) error {
	tx, err := w.l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := w.sealIn(ctx, tx, pruneTo, pruneHash, check); err != nil {
		return err
	}
	return tx.Commit()
}

// sealIn is sealNow in tx, with the seals' lock held (lockSeals).
func (w *writer) sealIn(ctx context.Context, tx *sql.Tx, pruneTo int64, pruneHash []byte, check bool) error {
	return w.sealWith(ctx, tx, pruneTo, pruneHash, check, nil)
}

// sealExtra is what a seal says besides where the record stands.
type sealExtra struct {
	// keep, for a trim (trim.go), are the seals file's lines kept: the
	// file is written anew with them and the seal; dropped is the seal's
	// Dropped.
	keep    []string
	dropped int64
	// reset is the seal's Reset (reset.go).
	reset string
}

// sealWith is sealIn, the seal saying extra too when it is not nil (and
// then made whether or not anything else is new).
func (w *writer) sealWith(ctx context.Context, tx *sql.Tx, pruneTo int64, pruneHash []byte, check bool, extra *sealExtra) error {
	s := w.sealer
	if s == nil {
		return nil
	}
	if fi, err := os.Stat(sealsPath(w.l.opts.Path)); err == nil && fi.Size() != s.fileSize {
		// Another process sealed since: its state is the keychain's.
		if err := s.catchUp(ctx, w); err != nil {
			return err
		}
	}
	last, _ := parseSeal(s.st.Last)
	next := seal{N: s.st.Next, Time: w.l.opts.Now().UnixNano(), Every: w.l.opts.SealEvery.Milliseconds()}
	var record sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaRecord).Scan(&record); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	switch err := tx.QueryRowContext(ctx, `SELECT id, hash FROM activity ORDER BY id DESC LIMIT 1`).Scan(&next.Head, &next.Hash); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	}
	var pruned sql.NullInt64
	var prunedHash []byte
	for k, dst := range map[string]any{metaPruned: &pruned, metaPrunedHash: &prunedHash} {
		if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, k).Scan(dst); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	next.Pruned, next.PrunedHash = pruned.Int64, prunedHash
	if pruneTo > 0 {
		next.Pruned, next.PrunedHash = pruneTo, pruneHash
	}
	if next.Head == 0 {
		next.Head, next.Hash = next.Pruned, next.PrunedHash
	}
	if check && s.st.Last != "" {
		switch {
		case record.String != s.st.Record:
			next.Break = "the file was not the record mcptray had sealed: it was replaced"
		case last.Head > last.Pruned:
			var h []byte
			err := tx.QueryRowContext(ctx, `SELECT hash FROM activity WHERE id = ?`, last.Head).Scan(&h)
			if errors.Is(err, sql.ErrNoRows) && next.Pruned < last.Head {
				next.Break = fmt.Sprintf("row %d, the newest sealed, was gone", last.Head)
			} else if err == nil && !bytes.Equal(h, last.Hash) {
				next.Break = fmt.Sprintf("row %d was not the row sealed", last.Head)
			} else if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if next.Break != "" {
			w.l.log.Warn("activity: the record is not as it was sealed; the break is sealed too", "what", next.Break)
		}
	}
	if extra != nil {
		next.Dropped, next.Reset = extra.dropped, extra.reset
	}
	if extra == nil && !check && !s.dirty && pruneTo == 0 && s.st.Last != "" && last.Head == next.Head && bytes.Equal(last.Hash, next.Hash) {
		return nil // nothing new
	}
	if extra == nil && check && next.Break == "" && s.st.Last != "" && last.Head == next.Head && bytes.Equal(last.Hash, next.Hash) && last.Pruned == next.Pruned {
		s.at = time.Now()
		return nil // as sealed: no need to say it again
	}
	if record.String != s.st.Record {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)`, metaRecord, s.st.Record); err != nil {
			return err
		}
	}
	next.MAC = macOf(s.st.Key, s.st.Record, next)
	line := next.line()
	var size int64
	var err error
	if extra != nil && extra.keep != nil {
		size, err = rewriteSeals(sealsPath(w.l.opts.Path), extra.keep, line)
	} else {
		size, err = appendSeal(sealsPath(w.l.opts.Path), line)
	}
	if err != nil {
		return fmt.Errorf("writing the seals file: %w", err)
	}
	st := s.st
	st.Next, st.Key, st.Last = st.Next+1, ratchet(st.Key), line
	// The seal is in the file: the state goes on from it even if this
	// fails (the next start finds it there, catchUp).
	s.st, s.fileSize, s.at, s.dirty = st, size, time.Now(), false
	if err := setJSON(ctx, w.l.opts.Keys, w.l.items.state, st); err != nil {
		return fmt.Errorf("keeping the sealing key in the keychain: %w", err)
	}
	return nil
}

// appendSeal appends line to the seals file at path, and returns the
// file's size after it.
func appendSeal(path, line string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	_, err = f.WriteString(line + "\n")
	if err == nil {
		err = f.Sync()
	}
	fi, serr := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = serr
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// rewriteSeals writes the seals file at path anew with the lines keep
// and then line, beside it and renamed over it: never half a file, and
// never the kept seals without the one that says what was dropped.
func rewriteSeals(path string, keep []string, line string) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	for _, l := range keep {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	w.WriteString(line)
	w.WriteByte('\n')
	err = w.Flush()
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	fi, serr := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = serr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// catchUp reads the state another process left in the keychain, and
// goes past a seal that made it to the file but not to the keychain.
func (s *sealer) catchUp(ctx context.Context, w *writer) error {
	var st sealState
	if err := getJSON(ctx, w.l.opts.Keys, w.l.items.state, &st); err != nil {
		return err
	}
	seals, lines, _, err := readSeals(w.l.opts.Path)
	if err != nil {
		return err
	}
	if n := len(seals); n > 0 && seals[n-1].N == st.Next && hmac.Equal(macOf(st.Key, st.Record, seals[n-1]), seals[n-1].MAC) {
		st.Next, st.Key, st.Last = st.Next+1, ratchet(st.Key), lines[n-1]
	}
	s.st = st
	if fi, err := os.Stat(sealsPath(w.l.opts.Path)); err == nil {
		s.fileSize = fi.Size()
	}
	return nil
}
