package cli

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
)

// writeActivity records calls in h's activity record as the running
// mcptray does: one two hours before the commands' now, two half an hour
// before, and a trust decision.
func (h *home) writeActivity() {
	h.t.Helper()
	ctx := context.Background()
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile(), Keys: h.store})
	if err != nil {
		h.t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	l.RecordCall(activity.Call{Time: now.Add(-2 * time.Hour), App: "Claude Code", Face: "http", Server: "files", Tool: "read",
		Duration: 3 * time.Millisecond, Outcome: activity.Answered, Decision: activity.Allowed, ResultSize: 1200, Arguments: json.RawMessage(`{"path":"/a"}`)})
	l.RecordCall(activity.Call{Time: now.Add(-30 * time.Minute), App: "Cursor", Face: "stdio", Server: "github", Tool: "create_issue",
		Outcome: activity.Refused, Reason: "you declined mcp__github__create_issue in mcptray", Decision: activity.AskedDeclined})
	l.RecordCall(activity.Call{Time: now.Add(-29 * time.Minute), App: "Cursor", Face: "stdio", Server: "files", Tool: "write",
		Outcome: activity.ToolFailed, Decision: activity.Allowed})
	l.RecordTrust(activity.Trust{Time: now.Add(-10 * time.Minute), Action: activity.PermissionSet, Target: "mcp__github__create_issue", Detail: "allow"})
	if err := l.Close(); err != nil {
		h.t.Fatal(err)
	}
}

// TestActivity: mcptray activity prints the record, filtered by time,
// app, server, tool and outcome, as lines or JSON; verify says it is
// intact, then finds the row someone changed; export writes it as CSV.
func TestActivity(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if out := h.must("activity"); !strings.Contains(out, "There is no activity record yet") {
		t.Errorf("activity with no record: %q", out)
	}
	h.writeActivity()

	out := h.must("activity")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "Claude Code (http)  files › read  answered  allowed  3 ms  1.2 kB  {\"path\":\"string(2)\"}") ||
		!strings.Contains(lines[1], "Cursor (stdio)  github › create_issue  refused  you were asked: declined") ||
		!strings.Contains(lines[1], "— you declined mcp__github__create_issue in mcptray") ||
		!strings.HasSuffix(lines[3], "you set mcp__github__create_issue to allow") {
		t.Errorf("activity:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want []string // tools, oldest first
	}{
		{[]string{"--since", "1h"}, []string{"create_issue", "write", ""}},
		{[]string{"--since", "2026-12-02T11:00", "--server", "files"}, []string{"write"}},
		{[]string{"--app", "Cursor"}, []string{"create_issue", "write"}},
		{[]string{"--tool", "read"}, []string{"read"}},
		{[]string{"--outcome", "refused"}, []string{"create_issue"}},
		{[]string{"-n", "1"}, []string{""}},
	} {
		out := h.must(append([]string{"activity", "--json"}, c.args...)...)
		var tools []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e activity.Entry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("activity --json %v: %q: %v", c.args, line, err)
			}
			tools = append(tools, e.Tool)
		}
		if strings.Join(tools, ",") != strings.Join(c.want, ",") {
			t.Errorf("activity %v: %q, want %q", c.args, tools, c.want)
		}
	}
	h.fails(2, "--outcome is one of answered, failed, refused, unavailable, cancelled", "activity", "--outcome", "bogus")
	h.fails(2, "--since takes a span", "activity", "--since", "yesterday")

	if out := h.must("activity", "verify"); !strings.Contains(out, "Proven: rows 1–4, 2 Dec") || !strings.Contains(out, "sealed every 5 s") {
		t.Errorf("verify: %q", out)
	}
	csv := filepath.Join(h.dir, "out.csv")
	if out := h.must("activity", "export", "--csv", csv, "--server", "files"); !strings.Contains(out, "Wrote 2 rows") {
		t.Errorf("export: %q", out)
	}
	if b, err := os.ReadFile(csv); err != nil || len(strings.Split(strings.TrimSpace(string(b)), "\n")) != 3 ||
		!strings.HasPrefix(string(b), "id,time,kind,app,face,server,tool,") {
		t.Errorf("the CSV file: %q %v", b, err)
	}

	db, err := sql.Open("sqlite", h.paths.ActivityFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE activity SET outcome = 'answered' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	h.fails(1, "the activity record was altered: row 2 was changed", "activity", "verify")

	// The newest row deleted and meta's head moved to the row now last:
	// only the seal shows it.
	db, err = sql.Open("sqlite", h.paths.ActivityFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE activity SET outcome = 'refused' WHERE id = 2`, `DELETE FROM activity WHERE id = 4`, `UPDATE meta SET value = 3 WHERE key = 'head'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	h.fails(1, "row 4, sealed by", "activity", "verify")
}

// TestActivityInProcess: a trust decision made while no mcptray runs is
// recorded by the service the command runs.
func TestActivityInProcess(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.must("permissions", "block", "mcp__files__write")
	out := h.must("activity", "--json")
	var e activity.Entry
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &e); err != nil {
		t.Fatalf("activity --json: %q: %v", out, err)
	}
	if e.Kind != activity.KindTrust || e.Action != activity.PermissionSet || e.Target != "mcp__files__write" || e.Detail != "block" {
		t.Errorf("the decision recorded: %+v", e)
	}
}

// TestActivityFollow: mcptray activity -f prints the newest rows, then a
// call recorded after it started, until it is stopped.
func TestActivityFollow(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeActivity()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Run(ctx, []string{"activity", "-f", "-n", "1", "--server", "files"}, Env{
			Stdout: w, Stderr: w, Paths: &h.paths, Store: h.store,
			Lookup: func(string) (string, bool) { return "", false },
		})
		w.Close()
		done <- code
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	expect := func(want string) {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("activity -f ended before printing %q", want)
				}
				if strings.Contains(l, want) {
					return
				}
				t.Errorf("activity -f printed %q before %q", l, want)
			case <-timer.C:
				t.Fatalf("waited 20s for activity -f to print %q", want)
			}
		}
	}
	expect("files › write")
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	l.RecordCall(activity.Call{Time: time.Now(), App: "Cursor", Face: "stdio", Server: "github", Tool: "list", Outcome: activity.Answered, Decision: activity.Allowed})
	l.RecordCall(activity.Call{Time: time.Now(), App: "Cursor", Face: "stdio", Server: "files", Tool: "stat", Outcome: activity.Answered, Decision: activity.Allowed})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	expect("files › stat") // and not github's
	cancel()
	for range lines {
	}
	if code := <-done; code != 0 {
		t.Errorf("activity -f stopped with exit code %d, want 0", code)
	}
}

// TestActivityKey: the verification key is written to a new file only,
// verify --key proves the record with it, and once --forget removed it
// from the keychain, verify without it says where it is.
func TestActivityKey(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeActivity()
	key := filepath.Join(h.dir, "activity.key")
	if out := h.must("activity", "key", key); !strings.Contains(out, "keep it somewhere else") || !strings.Contains(out, "--forget") {
		t.Errorf("activity key: %q", out)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v %v", fi, err)
	}
	h.fails(1, "file exists", "activity", "key", key)
	if out := h.must("activity", "key", "-"); !strings.HasPrefix(out, "mcptray activity verification key v1\n") {
		t.Errorf("activity key -: %q", out)
	}
	if out := h.must("activity", "verify", "--key", key); !strings.Contains(out, "Proven: rows 1–4") || !strings.Contains(out, "checked with the verification key you kept") {
		t.Errorf("verify --key: %q", out)
	}
	forgotten := filepath.Join(h.dir, "activity-2.key")
	if out := h.must("activity", "key", "--forget", forgotten); !strings.Contains(out, "no longer in your keychain") {
		t.Errorf("activity key --forget: %q", out)
	}
	if out := h.must("activity", "verify"); !strings.Contains(out, "give it with --key FILE") {
		t.Errorf("verify without the key it forgot: %q", out)
	}
	if out := h.must("activity", "verify", "--key", forgotten); !strings.Contains(out, "Proven: rows 1–4") {
		t.Errorf("verify --key after --forget: %q", out)
	}
	bogus := filepath.Join(h.dir, "bogus.key")
	os.WriteFile(bogus, []byte("not a key\n"), 0o600)
	h.fails(1, "not an activity record's verification key", "activity", "verify", "--key", bogus)
}

// TestActivityReset: reset asks first (no at the terminal keeps every
// row, and without a terminal it needs --yes), then starts the record
// anew, which its first row and verify say.
func TestActivityReset(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeActivity()
	if code, out, errOut := h.runAtTerminal("n\n", "activity", "reset"); code != 0 || !strings.Contains(out, "It has 4 rows, from 2 Dec 2026. Delete every row and start the record anew?") ||
		!strings.Contains(out, "Nothing was deleted.") {
		t.Fatalf("reset, answered no: exit %d %q %q", code, out, errOut)
	}
	h.fails(2, "add --yes", "activity", "reset")
	if out := h.must("activity", "--json"); len(strings.Split(strings.TrimSpace(out), "\n")) != 4 {
		t.Fatalf("rows after a reset declined: %q", out)
	}
	if code, out, errOut := h.runAtTerminal("yes\n", "activity", "reset"); code != 0 || !strings.Contains(out, "started anew: rows 1–4 were deleted") {
		t.Fatalf("reset, answered yes: exit %d %q %q", code, out, errOut)
	}
	out := h.must("activity")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasSuffix(lines[0], "the command line started the activity record anew: rows 1–4 before it were deleted") {
		t.Errorf("the new record: %q", out)
	}
	if out := h.must("activity", "verify"); !strings.Contains(out, "Proven: row 5, ") || !strings.Contains(out, "by the command line: rows 1–4 were deleted") {
		t.Errorf("verify after a reset: %q", out)
	}
	if out := h.must("activity", "reset", "--yes"); !strings.Contains(out, "rows 1–5 were deleted") {
		t.Errorf("reset --yes: %q", out)
	}
}
