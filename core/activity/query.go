package activity

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Filter picks rows of the record. Zero fields pick everything.
type Filter struct {
	// Since and Until bound the rows' time (Until excluded).
	Since, Until time.Time
	// App, Server and Tool pick calls by exactly these names.
	App, Server, Tool string
	// Outcome picks calls with this outcome.
	Outcome Outcome
	// Kind picks calls or trust decisions.
	Kind Kind
	// AfterID picks rows after this one, oldest first (to follow the
	// record); without it, rows come newest first unless Oldest.
	AfterID int64
	Oldest  bool
	// Limit bounds the number of rows; zero means 1000.
	Limit int
}

// where is f as SQL conditions and their arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(c string, a any) {
		conds = append(conds, c)
		args = append(args, a)
	}
	if !f.Since.IsZero() {
		add("time >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("time < ?", f.Until.UnixNano())
	}
	if f.App != "" {
		add("app = ?", f.App)
	}
	if f.Server != "" {
		add("server = ?", f.Server)
	}
	if f.Tool != "" {
		add("tool = ?", f.Tool)
	}
	if f.Outcome != "" {
		add("outcome = ?", string(f.Outcome))
	}
	if f.Kind != "" {
		add("kind = ?", string(f.Kind))
	}
	if f.AfterID > 0 {
		add("id > ?", f.AfterID)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// Query returns the rows f picks: newest first, or oldest first after
// f.AfterID.
func (l *Log) Query(ctx context.Context, f Filter) ([]Entry, error) {
	return l.query(ctx, f, f.Oldest || f.AfterID > 0)
}

// query returns the rows f picks, oldest first when asc.
func (l *Log) query(ctx context.Context, f Filter, asc bool) ([]Entry, error) {
	where, args := f.where()
	order := " ORDER BY id DESC"
	if asc {
		order = " ORDER BY id"
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 1000
	}
	rows, err := l.db.QueryContext(ctx, `SELECT `+columns+` FROM activity`+where+order+fmt.Sprintf(" LIMIT %d", limit), args...)
	if err != nil {
		return nil, fmt.Errorf("reading the activity record: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		if err := scanEntry(rows, &e); err != nil {
			return nil, fmt.Errorf("reading the activity record: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the activity record: %w", err)
	}
	return out, nil
}

// Names are the apps, servers and tools the record holds calls of, for
// the window's filters.
type Names struct {
	Apps, Servers, Tools []string
}

// Names returns the distinct apps, servers and tools of the calls since.
func (l *Log) Names(ctx context.Context, since time.Time) (Names, error) {
	var n Names
	for col, dst := range map[string]*[]string{"app": &n.Apps, "server": &n.Servers, "tool": &n.Tools} {
		rows, err := l.db.QueryContext(ctx, `SELECT DISTINCT `+col+` FROM activity INDEXED BY activity_time WHERE kind = 'call' AND time >= ? AND `+col+` != '' ORDER BY 1`, since.UnixNano())
		if err != nil {
			return n, fmt.Errorf("reading the activity record: %w", err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return n, fmt.Errorf("reading the activity record: %w", err)
			}
			*dst = append(*dst, s)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return n, fmt.Errorf("reading the activity record: %w", err)
		}
	}
	return n, nil
}
