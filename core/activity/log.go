package activity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// Defaults of Options.
const (
	// DefaultFlushEvery is how often the writer writes what it was given:
	// a killed mcptray loses at most this much of the record.
	DefaultFlushEvery = 200 * time.Millisecond
	// DefaultBatchRows is how many rows make the writer write at once,
	// before FlushEvery is up.
	DefaultBatchRows = 256
	// DefaultQueue is how many rows may wait for the writer; more are
	// dropped (and counted) rather than make a call wait.
	DefaultQueue = 8192
)

// Options configure a Log.
type Options struct {
	// Path is the database file (config.Paths.ActivityFile).
	Path   string
	Logger *slog.Logger
	// ReadOnly opens the file only to read it: mcptray activity and the
	// window, while the running mcptray writes it. A read-only Log
	// records nothing.
	ReadOnly bool
	// Settings are the person's: Keep arguments and the retention.
	// SetSettings changes them.
	Settings Settings
	// Secrets returns the values of the secrets mcptray keeps (servers'
	// ${secret:NAME} values, their environment and header values, the
	// gateway's token), to be masked wherever they appear. It is called
	// from the writer, at most once every SecretsEvery.
	Secrets func(ctx context.Context) []string
	// SecretsEvery is how long Secrets' answer is used; zero means 5 s.
	SecretsEvery time.Duration
	// Keys keep the record's keys: the keychain, through which its rows are
	// chained with a key and its seals made (seal.go). Nil: the record is
	// chained but not sealed, and says so.
	Keys Keys
	// VerifyKey is the record's verification key as ExportKey wrote it,
	// kept somewhere else: Verify checks the seals with it rather than
	// with the keychain's (verifykey.go).
	VerifyKey []byte
	// SealEvery is how often, at most, the writer seals what it wrote;
	// zero means DefaultSealEvery.
	SealEvery time.Duration
	// FlushEvery, BatchRows and Queue: zero means their Default.
	FlushEvery time.Duration
	BatchRows  int
	Queue      int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// trimAt is the seals file's size from which it is trimmed; zero
	// means trimAtLeast (tests make it small).
	trimAt int64
}

// Settings are what the person sets: in config.json's "activity" and in
// the window's Settings.
type Settings struct {
	// KeepArguments keeps arguments' values, secrets masked, rather than
	// their shape.
	KeepArguments bool `json:"keepArguments,omitempty"`
	// Days is how long rows are kept; zero means DefaultDays.
	Days int `json:"days,omitempty"`
	// MaxMB bounds the file's size in megabytes (10^6 bytes); zero means
	// DefaultMaxMB.
	MaxMB int `json:"maxMB,omitempty"`
}

// Defaults of Settings.
const (
	DefaultDays  = 90
	DefaultMaxMB = 100
)

func (s Settings) days() int {
	if s.Days <= 0 {
		return DefaultDays
	}
	return s.Days
}

func (s Settings) maxBytes() int64 {
	if s.MaxMB <= 0 {
		return DefaultMaxMB * 1e6
	}
	return int64(s.MaxMB) * 1e6
}

// Log is the activity record: open, it takes rows (RecordCall,
// RecordTrust) and answers queries. Its methods are safe for concurrent
// use.
type Log struct {
	opts     Options
	log      *slog.Logger
	db       *sql.DB
	items    items // its keychain items (seal.go)
	settings atomic.Pointer[Settings]

	rows     rows               // handed over, waiting for the writer (writer.go)
	wake     chan struct{}      // rows wait: the first of a batch, or a full batch
	pruneNow chan struct{}      // SetSettings' request to apply the retention
	flushes  chan chan struct{} // Flush's requests
	resets   chan resetReq      // Reset's requests (reset.go)
	stop     chan struct{}
	done     chan struct{}
	dropped  atomic.Int64
	closeMu  sync.Once
	// secretsStale makes the writer ask Secrets again before its next
	// batch (SecretsChanged).
	secretsStale atomic.Bool
}

// meta keys.
const (
	metaHead       = "head"        // the newest row's id
	metaPruned     = "pruned"      // the last id retention deleted
	metaPrunedHash = "pruned-hash" // and its hash, the prev of the next row
)

const schema = `
CREATE TABLE IF NOT EXISTS activity (
	id INTEGER PRIMARY KEY,
	time INTEGER NOT NULL,
	kind TEXT NOT NULL,
	app TEXT NOT NULL DEFAULT '',
	face TEXT NOT NULL DEFAULT '',
	server TEXT NOT NULL DEFAULT '',
	tool TEXT NOT NULL DEFAULT '',
	duration INTEGER NOT NULL DEFAULT 0,
	outcome TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT '',
	decision TEXT NOT NULL DEFAULT '',
	result_size INTEGER NOT NULL DEFAULT 0,
	arguments TEXT NOT NULL DEFAULT '',
	arguments_kept INTEGER NOT NULL DEFAULT 0,
	action TEXT NOT NULL DEFAULT '',
	target TEXT NOT NULL DEFAULT '',
	detail TEXT NOT NULL DEFAULT '',
	prev BLOB NOT NULL,
	hash BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_time ON activity(time);
CREATE INDEX IF NOT EXISTS activity_server_time ON activity(server, time);
CREATE INDEX IF NOT EXISTS activity_app_time ON activity(app, time);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
`

// columns are an Entry's columns, in scanEntry's order.
const columns = `id, time, kind, app, face, server, tool, duration, outcome, reason, decision, result_size, arguments, arguments_kept, action, target, detail, prev, hash`

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner, e *Entry) error {
	var t, dur int64
	err := r.Scan(&e.ID, &t, &e.Kind, &e.App, &e.Face, &e.Server, &e.Tool, &dur, &e.Outcome, &e.Reason, &e.Decision,
		&e.ResultSize, &e.Arguments, &e.ArgumentsKept, &e.Action, &e.Target, &e.Detail, &e.prev, &e.hash)
	e.Time, e.Duration = time.Unix(0, t), time.Duration(dur)
	return err
}

// ErrNoRecord is what a read-only Open returns when there is no record
// yet.
var ErrNoRecord = errors.New("there is no activity record yet: it starts with the first call an app makes through mcptray")

// dsn is the database/sql name of the file at path.
func dsn(path string, readOnly bool) string {
	// file:///C:/… on Windows (SQLite drops the / before a drive letter),
	// file:///home/… elsewhere.
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	u := url.URL{Path: p}
	q := "?_pragma=busy_timeout(5000)"
	if readOnly {
		q += "&mode=ro"
	} else {
		// auto_vacuum first: it takes only in a file with no table yet,
		// and lets retention give freed pages back (incremental_vacuum).
		q += "&_pragma=auto_vacuum(INCREMENTAL)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	}
	return "file://" + u.EscapedPath() + q
}

// Open opens the record at opts.Path, making it the first time, and (unless
// ReadOnly) starts its writer, which Close stops.
func Open(ctx context.Context, opts Options) (*Log, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = DefaultFlushEvery
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = DefaultBatchRows
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.SealEvery <= 0 {
		opts.SealEvery = DefaultSealEvery
	}
	if opts.SecretsEvery <= 0 {
		opts.SecretsEvery = 5 * time.Second
	}
	if opts.trimAt <= 0 {
		opts.trimAt = trimAtLeast
	}
	if opts.ReadOnly {
		if _, err := os.Stat(opts.Path); errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoRecord
		}
	} else if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("making the activity record's folder: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(opts.Path, opts.ReadOnly))
	if err != nil {
		return nil, fmt.Errorf("opening the activity record: %w", err)
	}
	l := &Log{opts: opts, log: opts.Logger, db: db, items: itemsFor(opts.Path)}
	st := opts.Settings
	l.settings.Store(&st)
	if opts.ReadOnly {
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("opening the activity record %s: %w", opts.Path, err)
		}
		return l, nil
	}
	db.SetMaxOpenConns(4)
	if err := l.create(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the activity record %s: %w", opts.Path, err)
	}
	l.wake, l.pruneNow = make(chan struct{}, 1), make(chan struct{}, 1)
	l.flushes = make(chan chan struct{})
	l.resets = make(chan resetReq)
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.run()
	return l, nil
}

// create makes the tables.
func (l *Log) create(ctx context.Context) error {
	c, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA journal_size_limit=4000000`); err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, schema)
	return err
}

// Settings are the Log's settings now.
func (l *Log) Settings() Settings { return *l.settings.Load() }

// SetSettings changes Keep arguments and the retention, for the rows
// written from now on; a shorter retention applies at once.
func (l *Log) SetSettings(s Settings) {
	l.settings.Store(&s)
	if l.pruneNow != nil {
		select {
		case l.pruneNow <- struct{}{}:
		default: // asked already
		}
	}
}

// SecretsChanged says that the secrets mcptray keeps may have changed (a
// secret was set, the config changed): the next batch is masked with
// Secrets' new answer, rather than one up to SecretsEvery old.
func (l *Log) SecretsChanged() {
	if l != nil {
		l.secretsStale.Store(true)
	}
}

// Dropped is how many rows were dropped because the writer could not keep
// up.
func (l *Log) Dropped() int64 { return l.dropped.Load() }

// Close writes what is waiting, stops the writer and closes the file.
func (l *Log) Close() error {
	l.closeMu.Do(func() {
		if l.stop != nil {
			close(l.stop)
			<-l.done
		}
	})
	return l.db.Close()
}
