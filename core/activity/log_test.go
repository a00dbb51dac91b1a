package activity

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func open(t *testing.T, opts Options) *Log {
	t.Helper()
	if opts.Path == "" {
		opts.Path = filepath.Join(t.TempDir(), "activity.db")
	}
	l, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func flush(t *testing.T, l *Log) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound for failure: -race makes SQLite slow
	defer cancel()
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func call(app, server, tool string, o Outcome, d Decision, args string) Call {
	return Call{Time: time.Now(), App: app, Face: "stdio", Server: server, Tool: tool, Duration: 3 * time.Millisecond,
		Outcome: o, Decision: d, ResultSize: 12, Arguments: json.RawMessage(args)}
}

func TestRecordQuerySummary(t *testing.T) {
	l := open(t, Options{})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{"path":"/a"}`))
	l.RecordCall(call("Claude Code", "github", "create_issue", Refused, AskedDeclined, `{}`))
	l.RecordCall(call("Cursor", "files", "write", ToolFailed, AskedAllowed, `{"path":"/b"}`))
	l.RecordTrust(Trust{Action: Approved, Target: "files"})
	flush(t, l)

	all, err := l.Query(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].Kind != KindTrust || all[3].Tool != "read" {
		t.Fatalf("rows, newest first: %+v", all)
	}
	if all[3].Arguments != `{"path":"string(2)"}` || all[3].ArgumentsKept {
		t.Errorf("arguments kept as %q", all[3].Arguments)
	}
	got, err := l.Query(t.Context(), Filter{Server: "files", Outcome: ToolFailed})
	if err != nil || len(got) != 1 || got[0].App != "Cursor" {
		t.Fatalf("filtered: %+v %v", got, err)
	}
	sum, err := l.Summary(t.Context(), StartOfDay(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Today: Claude Code made 2 calls to 2 servers, Cursor 1 call to 1 server; you were asked twice; 1 was refused; 1 failed"; sum.Sentence("Today") != want {
		t.Errorf("summary\n got %s\nwant %s", sum.Sentence("Today"), want)
	}
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Rows != 4 {
		t.Errorf("verify: %+v %v", res, err)
	}
	var csv bytes.Buffer
	if n, err := l.Export(t.Context(), &csv, Filter{Kind: KindCall}); err != nil || n != 3 {
		t.Errorf("export: %d rows, %v", n, err)
	}
	if lines := strings.Split(strings.TrimSpace(csv.String()), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[1], "1,") {
		t.Errorf("csv:\n%s", csv.String())
	}
}

// TestNoSecretInTheFile: a secret mcptray keeps, and values that look like
// secrets, passed as arguments, never reach the database's files, with
// Keep arguments on or off.
func TestNoSecretInTheFile(t *testing.T) {
	const planted = "Planted-Secret-4f1c9a"
	lookalikes := []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "AKIAIOSFODNN7EXAMPLE", "hunter2pass"}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "activity.db")
			l := open(t, Options{Path: path, Settings: Settings{KeepArguments: keep},
				Secrets: func(context.Context) []string { return []string{planted} }})
			args, _ := json.Marshal(map[string]any{"query": "find " + planted, planted: 1, "nested": []any{map[string]string{"v": planted}},
				"gh": lookalikes[0], "aws": lookalikes[1], "db": "postgres://me:" + lookalikes[2] + "@h/x", "password": "pw-" + planted})
			l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, string(args)))
			c := call("Claude Code", "files", "read", Unavailable, Allowed, "")
			c.Reason = "the server said: bad key " + planted
			l.RecordCall(c)
			flush(t, l)
			rows, err := l.Query(t.Context(), Filter{})
			if err != nil || len(rows) != 2 {
				t.Fatal(rows, err)
			}
			if rows[1].ArgumentsKept != keep {
				t.Errorf("kept: %v", rows[1].ArgumentsKept)
			}
			if keep && !strings.Contains(rows[1].Arguments, "find [masked]") {
				t.Errorf("kept arguments: %s", rows[1].Arguments)
			}
			grepFiles(t, dir, append([]string{planted}, lookalikes...))
			l.Close()
			grepFiles(t, dir, append([]string{planted}, lookalikes...))
		})
	}
}

// grepFiles fails when any file in dir (the database, its -wal and -shm)
// holds one of secrets.
func grepFiles(t *testing.T, dir string, secrets []string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", e.Name(), s)
			}
		}
	}
	if n == 0 {
		t.Fatal("no file was written")
	}
}

func TestRetentionByAge(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	l := open(t, Options{Now: func() time.Time { return now }})
	for _, age := range []int{100, 95, 91, 89, 10, 0} { // days
		c := call("Claude Code", "files", "read", Answered, Allowed, `{}`)
		c.Time = now.Add(-time.Duration(age) * 24 * time.Hour)
		l.RecordCall(c)
	}
	flush(t, l)
	l.SetSettings(Settings{}) // 90 days: applies now
	flush(t, l)
	rows, err := l.Query(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[2].ID != 4 {
		t.Fatalf("kept %d rows, the oldest %d: %+v", len(rows), rows[len(rows)-1].ID, rows)
	}
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil {
		t.Errorf("verify after retention: %+v %v", res, err)
	}
	l.SetSettings(Settings{Days: 5})
	flush(t, l)
	if rows, _ := l.Query(t.Context(), Filter{}); len(rows) != 1 {
		t.Fatalf("with 5 days, %d rows", len(rows))
	}
	// The chain goes on from the rows retention deleted.
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Rows != 2 {
		t.Errorf("verify: %+v %v", res, err)
	}
}

func TestRetentionBySize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "activity.db")
	l := open(t, Options{Path: path, Settings: Settings{KeepArguments: true}})
	big := `{"text":"` + strings.Repeat("lorem ipsum ", 200) + `"}` // 2.4 kB
	for range 1000 {
		l.RecordCall(call("Claude Code", "files", "write", Answered, Allowed, big))
	}
	flush(t, l)
	used := func() int64 {
		w := &writer{l: l}
		n, err := w.used(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if u := used(); u < 2e6 {
		t.Fatalf("1000 rows use only %d bytes", u)
	}
	l.SetSettings(Settings{KeepArguments: true, MaxMB: 1})
	flush(t, l)
	if u := used(); u > 1e6 {
		t.Errorf("with 1 MB, the record uses %d bytes", u)
	}
	rows, err := l.Query(t.Context(), Filter{Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || len(rows) >= 1000 || rows[0].ID != 1000 {
		t.Fatalf("%d rows left, the newest %d", len(rows), rows[0].ID)
	}
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil {
		t.Errorf("verify: %+v %v", res, err)
	}
	l.Close()
	if fi, err := os.Stat(path); err != nil || fi.Size() > 1.2e6 {
		t.Errorf("the file is %d bytes (%v)", fi.Size(), err)
	}
}

// tamper opens the file beside the Log, as someone editing it would.
func tamper(t *testing.T, path, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFindsChangesAndRemovals(t *testing.T) {
	cases := []struct {
		name  string
		query string
		want  Problem
	}{
		{"edited", `UPDATE activity SET outcome = 'answered' WHERE id = 5`, Problem{ID: 5}},
		{"edited prev", `UPDATE activity SET prev = zeroblob(32) WHERE id = 6`, Problem{ID: 6}},
		{"deleted", `DELETE FROM activity WHERE id = 7`, Problem{ID: 7, Removed: true}},
		{"deleted the last", `DELETE FROM activity WHERE id >= 9`, Problem{ID: 9, Removed: true}},
		{"deleted the first", `DELETE FROM activity WHERE id <= 2`, Problem{ID: 1, Removed: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "activity.db")
			l := open(t, Options{Path: path})
			for i := range 10 {
				l.RecordCall(call("Claude Code", "files", "t"+strconv.Itoa(i), Refused, Blocked, `{}`))
			}
			flush(t, l)
			if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Rows != 10 {
				t.Fatalf("before: %+v %v", res, err)
			}
			tamper(t, path, c.query)
			res, err := l.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if res.Problem == nil || res.Problem.ID != c.want.ID || res.Problem.Removed != c.want.Removed {
				t.Errorf("got %+v, want %+v", res.Problem, c.want)
			}
		})
	}
}

// TestReadOnlyWhileWriting: mcptray activity reads what the running
// mcptray wrote, while it writes.
func TestReadOnlyWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "activity.db")
	if _, err := Open(t.Context(), Options{Path: path, ReadOnly: true}); err != ErrNoRecord {
		t.Fatalf("no file: %v", err)
	}
	w := open(t, Options{Path: path})
	w.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, w)
	r := open(t, Options{Path: path, ReadOnly: true})
	rows, err := r.Query(t.Context(), Filter{})
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
	w.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, w)
	if rows, err := r.Query(t.Context(), Filter{AfterID: 1}); err != nil || len(rows) != 1 || rows[0].ID != 2 {
		t.Fatal(rows, err)
	}
	r.RecordCall(call("x", "y", "z", Answered, Allowed, "")) // records nothing, and does not block
}

// TestKilledMidBatch: a process killed (SIGKILL) while it records leaves a
// readable database that verifies, with every row it had flushed.
func TestKilledMidBatch(t *testing.T) {
	if path := os.Getenv("ACTIVITY_TEST_WRITER"); path != "" {
		writeForever(path)
		return
	}
	path := filepath.Join(t.TempDir(), "activity.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledMidBatch$")
	cmd.Env = append(os.Environ(), "ACTIVITY_TEST_WRITER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The writer says how many rows it flushed; kill it mid-way through
	// the batches after the fifth.
	sc := bufio.NewScanner(out)
	flushed := 0
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("writer said %q", sc.Text())
		}
		flushed = n
		if n >= 5*200 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if flushed == 0 {
		t.Fatal("the writer flushed nothing")
	}
	r := open(t, Options{Path: path, ReadOnly: true})
	res, err := r.Verify(t.Context())
	if err != nil || res.Problem != nil {
		t.Fatalf("verify after the kill: %+v %v", res, err)
	}
	if res.Rows < int64(flushed) {
		t.Errorf("%d rows after the kill; %d had been flushed", res.Rows, flushed)
	}
	r.Close()
	// The next mcptray goes on where the killed one stopped.
	l := open(t, Options{Path: path})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, l)
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil || res.Rows < int64(flushed)+1 {
		t.Fatalf("verify after a restart: %+v %v", res, err)
	}
}

// writeForever records calls without end, 200 between flushes (and
// more in the batch after), saying after each flush how many it flushed.
func writeForever(path string) {
	ctx := context.Background()
	l, err := Open(ctx, Options{Path: path, FlushEvery: time.Millisecond, BatchRows: 50})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for n := 1; ; n++ {
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{"n":1}`))
		if n%200 == 0 {
			if err := l.Flush(ctx); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Println(n)
		}
	}
}

// TestTwoWriters: a second process that wrote rows meanwhile (a command
// run while no mcptray ran) does not stop the first from writing, nor
// break the chain.
func TestTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "activity.db")
	a := open(t, Options{Path: path})
	b := open(t, Options{Path: path})
	a.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
	flush(t, a)
	b.RecordTrust(Trust{Action: Approved, Target: "files"})
	flush(t, b)
	a.RecordCall(call("Claude Code", "files", "write", Answered, Allowed, `{}`))
	flush(t, a)
	res, err := a.Verify(t.Context())
	if err != nil || res.Problem != nil || res.Rows != 3 {
		t.Fatalf("verify: %+v %v", res, err)
	}
}

// TestRemovalStaysSeen: rows removed from the end stay found after the
// record goes on, by the same writer or by the next mcptray's.
func TestRemovalStaysSeen(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "activity.db")
		l := open(t, Options{Path: path})
		for range 5 {
			l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		}
		flush(t, l)
		tamper(t, path, `DELETE FROM activity WHERE id = 5`)
		if reopen {
			l.Close()
			l = open(t, Options{Path: path})
		}
		l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{}`))
		flush(t, l)
		res, err := l.Verify(t.Context())
		if err != nil || res.Problem == nil || res.Problem.ID != 5 || !res.Problem.Removed {
			t.Errorf("reopen=%v: %+v %v", reopen, res, err)
		}
	}
}

// TestSecretsChanged: a secret set a moment ago is masked from the next
// batch on, not only once SecretsEvery is up.
func TestSecretsChanged(t *testing.T) {
	var known atomic.Value
	known.Store([]string{"first-secret-value"})
	l := open(t, Options{Settings: Settings{KeepArguments: true}, SecretsEvery: time.Hour,
		Secrets: func(context.Context) []string { return known.Load().([]string) }})
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{"q":"first-secret-value"}`))
	flush(t, l)
	known.Store([]string{"second-secret-value"})
	l.SecretsChanged()
	l.RecordCall(call("Claude Code", "files", "read", Answered, Allowed, `{"q":"second-secret-value"}`))
	flush(t, l)
	rows, err := l.Query(t.Context(), Filter{Oldest: true})
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	for _, e := range rows {
		if e.Arguments != `{"q":"[masked]"}` {
			t.Errorf("row %d kept %s", e.ID, e.Arguments)
		}
	}
}

// TestTrustBy: a trust decision says which of the person's tools made it,
// kept in the row (and so in its hash), read back in its words; a row
// that does not say reads "you", as rows did before.
func TestTrustBy(t *testing.T) {
	l := open(t, Options{})
	l.RecordTrust(Trust{Action: SandboxAllowance, Target: "probe", Detail: "run without a sandbox", By: "the command line (mcptray, pid 4242)"})
	l.RecordTrust(Trust{Action: Approved, Target: "files"})
	flush(t, l)
	rows, err := l.Query(t.Context(), Filter{Kind: KindTrust, Oldest: true})
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	if got, want := rows[0].TrustWords(), "the command line (mcptray, pid 4242) let probe run without a sandbox"; got != want {
		t.Errorf("words\n got %q\nwant %q", got, want)
	}
	if got, want := rows[1].TrustWords(), "you approved files"; got != want {
		t.Errorf("words of a row that does not say who\n got %q\nwant %q", got, want)
	}
	if res, err := l.Verify(t.Context()); err != nil || res.Problem != nil {
		t.Errorf("verify: %+v %v", res, err)
	}
	// Who decided is not an app that called: the filters' names leave it out.
	if n, err := l.Names(t.Context(), time.Time{}); err != nil || len(n.Apps) != 0 {
		t.Errorf("names: %+v %v", n, err)
	}
}
