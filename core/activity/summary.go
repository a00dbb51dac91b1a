package activity

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Summary is what the apps did over a span: the window's and the tray's
// "Today: …" line.
type Summary struct {
	Calls int `json:"calls"`
	// Apps are the apps that called, the busiest first.
	Apps []AppSummary `json:"apps,omitempty"`
	// Asked is how many calls the person was asked about; Refused how many
	// were refused by a permission; Failed how many the tool failed or
	// could not be reached.
	Asked   int `json:"asked"`
	Refused int `json:"refused"`
	Failed  int `json:"failed"`
	// Held is how many calls the flow guard held (core/guard): asked
	// about with its chain, refused or blocked, or noted as decided by it
	// when their server reached out; not those it let through when off.
	Held int `json:"held"`
}

// AppSummary is one app's calls over the span.
type AppSummary struct {
	App     string `json:"app"`
	Calls   int    `json:"calls"`
	Servers int    `json:"servers"`
}

// StartOfDay is the start of t's day, in t's location.
func StartOfDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// Summary sums up the calls since.
func (l *Log) Summary(ctx context.Context, since time.Time) (Summary, error) {
	var s Summary
	t := since.UnixNano()
	err := l.db.QueryRowContext(ctx, `SELECT count(*),
		coalesce(sum(decision IN ('asked-allowed','asked-declined','asked-unanswered',
			'guard-allowed-once','guard-allowed-session','guard-declined','guard-unanswered')), 0),
		coalesce(sum(outcome = 'refused'), 0),
		coalesce(sum(outcome IN ('failed','unavailable')), 0),
		coalesce(sum(decision LIKE 'guard-%' AND decision != 'guard-off'), 0)
		FROM activity INDEXED BY activity_time WHERE kind = 'call' AND time >= ?`, t).Scan(&s.Calls, &s.Asked, &s.Refused, &s.Failed, &s.Held)
	if err != nil {
		return s, fmt.Errorf("reading the activity record: %w", err)
	}
	// By the time index: SQLite would otherwise walk the (app, time) one
	// whole for the GROUP BY.
	rows, err := l.db.QueryContext(ctx, `SELECT app, count(*), count(DISTINCT server) FROM activity INDEXED BY activity_time
		WHERE kind = 'call' AND time >= ? GROUP BY app ORDER BY 2 DESC, 1`, t)
	if err != nil {
		return s, fmt.Errorf("reading the activity record: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a AppSummary
		if err := rows.Scan(&a.App, &a.Calls, &a.Servers); err != nil {
			return s, fmt.Errorf("reading the activity record: %w", err)
		}
		s.Apps = append(s.Apps, a)
	}
	return s, rows.Err()
}

// Sentence says s in words, for a span called when ("Today"): "Today:
// Claude Code made 42 calls to 5 servers; you were asked 3 times; 1 was
// refused". App names are as the apps gave them: sanitise before showing.
func (s Summary) Sentence(when string) string {
	if s.Calls == 0 {
		return when + ": no calls from your AI apps"
	}
	var apps []string
	for i, a := range s.Apps {
		if i == 3 {
			apps = append(apps, fmt.Sprintf("%d more apps made %d calls", len(s.Apps)-3, s.Calls-sumCalls(s.Apps[:3])))
			break
		}
		name := a.App
		if name == "" {
			name = "an unnamed app"
		}
		verb := "made "
		if i > 0 {
			verb = ""
		}
		apps = append(apps, fmt.Sprintf("%s %s%s to %s", name, verb, plural(a.Calls, "call"), plural(a.Servers, "server")))
	}
	out := when + ": " + strings.Join(apps, ", ")
	if s.Asked > 0 {
		out += "; you were asked " + times(s.Asked)
	}
	if s.Refused > 0 {
		out += fmt.Sprintf("; %d %s refused", s.Refused, was(s.Refused))
	}
	if s.Failed > 0 {
		out += fmt.Sprintf("; %d failed", s.Failed)
	}
	if s.Held > 0 {
		out += "; " + GuardHeldWords(s.Held)
	}
	return out
}

// GuardHeldWords says how many calls the flow guard held: "the guard held
// 1 call", "the guard held 3 calls".
func GuardHeldWords(n int) string { return "the guard held " + plural(n, "call") }

func sumCalls(apps []AppSummary) int {
	n := 0
	for _, a := range apps {
		n += a.Calls
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func was(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
