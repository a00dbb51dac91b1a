package window

import (
	"context"
	"database/sql"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
)

// TestRealActivity: the Activity view shows the record the running
// mcptray writes: today's summary, the rows newest first, filtered by
// time, server and outcome, each opening to its details, and a call
// recorded while it is open; Settings' Activity section keeps its
// settings in mcptray's config through the service.
func TestRealActivity(t *testing.T) {
	r := newReal(t, map[string]any{"mcpServers": map[string]any{}})
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	path := r.paths.ActivityFile()
	l, err := activity.Open(ctx, activity.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Now()
	if now.Sub(activity.StartOfDay(now)) < 10*time.Minute {
		now = activity.StartOfDay(now).Add(10 * time.Minute) // today's rows stay today's
	}
	call := func(at time.Time, app, srv, tool string, o activity.Outcome, d activity.Decision) {
		l.RecordCall(activity.Call{Time: at, App: app, Face: "stdio", Server: srv, Tool: tool, Duration: 4 * time.Millisecond,
			Outcome: o, Decision: d, ResultSize: 42, Arguments: json.RawMessage(`{"path":"/notes.md"}`)})
	}
	call(now.AddDate(0, 0, -2), "Claude Code", "files", "read", activity.Answered, activity.Allowed)
	call(now.Add(-5*time.Minute), "Claude Code", "files", "read", activity.Answered, activity.Allowed)
	call(now.Add(-4*time.Minute), "Claude Code", "github", "create_issue", activity.Refused, activity.AskedDeclined)
	l.RecordTrust(activity.Trust{Time: now.Add(-3 * time.Minute), Action: activity.PermissionSet, Target: "mcp__github__create_issue", Detail: "ask"})
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	r.until("the first snapshot", func() bool { return r.v.loaded })
	r.tap(r.v.activityBtn)
	const today = "Today: Claude Code made 2 calls to 2 servers; you were asked once; 1 was refused"
	r.until("the Activity view with today's summary", func() bool {
		return r.v.activity != nil && r.v.activity.summary.Text == today && len(r.v.activity.rows) == 3
	})
	a := r.v.activity
	r.v.do(func() {
		if a.rows[0].Kind != activity.KindTrust || a.rows[1].Tool != "create_issue" || a.rows[2].Tool != "read" {
			t.Errorf("today's rows, newest first: %+v", a.rows)
		}
		if got := activityRow(a.rows[1]); !strings.HasSuffix(got, "Claude Code   github › create_issue   refused") {
			t.Errorf("a row reads %q", got)
		}
		if strings.Join(a.server.Options, ",") != "All servers,files,github" {
			t.Errorf("the server filter offers %q", a.server.Options)
		}
		a.server.SetSelected("files")
	})
	r.until("only files' call of today", func() bool { return len(a.rows) == 1 && a.rows[0].Server == "files" })
	r.v.do(func() { a.span.SetSelected(spanAll) })
	r.until("files' calls of every day", func() bool { return len(a.rows) == 2 })
	r.v.do(func() {
		a.server.SetSelected(allServers)
		a.outcome.SetSelected(activity.Refused.Words())
	})
	r.until("the refused call", func() bool { return len(a.rows) == 1 && a.rows[0].Outcome == activity.Refused })
	r.v.do(func() { a.list.Select(0) })
	r.v.do(func() {
		if a.details == nil {
			t.Fatal("a row opens no details")
		}
		for _, want := range []string{"App: Claude Code through mcptray stdio", "Server: github", "Tool: create_issue",
			"Permission: you were asked: declined", "Outcome: refused", "Took: 4 ms", "Result: 42 B", `Arguments (their shape only): {"path":"string(9)"}`} {
			if !strings.Contains(a.detail.Text, want) {
				t.Errorf("the details lack %q:\n%s", want, a.detail.Text)
			}
		}
		a.details.Hide()
		a.outcome.SetSelected(anyOutcome)
		a.span.SetSelected(spanToday)
	})

	// A call recorded while the view is open shows within its refresh.
	call(time.Now(), "Cursor", "files", "write", activity.ToolFailed, activity.Allowed)
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	r.until("the new call at the top", func() bool { return len(a.rows) == 4 && a.rows[0].App == "Cursor" })
	screenshot(t, r, "activity")
	r.v.do(func() { a.d.Hide() })

	// Settings: Keep arguments and the retention, kept by the service.
	r.tap(r.v.settingsButton)
	r.until("Settings' Activity section", func() bool {
		return r.v.settings != nil && r.v.settings.record != nil && !r.v.settings.record.save.Disabled()
	})
	s := r.v.settings.record
	r.v.do(func() {
		s.keep.SetChecked(true)
		s.days.SetText("30")
		s.mb.SetText("abc")
	})
	r.tap(s.save)
	r.until("an error for the size", func() bool {
		return len(r.v.errs) > 0 && strings.Contains(r.v.errs[len(r.v.errs)-1], "The size in MB must be a whole number")
	})
	r.v.do(func() { s.mb.SetText("") })
	r.tap(s.save)
	r.until("the settings kept", func() bool {
		st, err := r.svc.ActivitySettings(ctx)
		return err == nil && st == (config.ActivitySettings{KeepArguments: true, Days: 30})
	})
}

// screenshot writes the window's canvas as name.png into
// $MCPTRAY_SCREENSHOTS, when it is set.
func screenshot(t *testing.T, r *real, name string) {
	dir := os.Getenv("MCPTRAY_SCREENSHOTS")
	if dir == "" {
		return
	}
	r.v.do(func() {
		f, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if err := png.Encode(f, r.win.Canvas().Capture()); err != nil {
			t.Error(err)
		}
	})
}

// TestVerifiedLine: the Activity view's line on the record's verification
// says a record with no keychain is chained but not sealed, and what was
// done to one altered.
func TestVerifiedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "activity.db")
	l, err := activity.Open(t.Context(), activity.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for range 3 {
		l.RecordCall(activity.Call{Time: time.Now(), App: "Claude Code", Face: "stdio", Server: "files", Tool: "read", Outcome: activity.Answered})
	}
	if err := l.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, err := l.Verify(t.Context())
	if got := verifiedLine(res, err); !strings.HasPrefix(got, "Rows 1–3, ") || !strings.Contains(got, "are chained but not sealed: no keychain") {
		t.Errorf("untouched, no keychain: %q", got)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE activity SET tool = 'write' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	res, err = l.Verify(t.Context())
	if got, want := verifiedLine(res, err), "The record was altered: row 2 was changed (mcptray activity verify says all)."; got != want {
		t.Errorf("altered: %q, want %q", got, want)
	}
}
