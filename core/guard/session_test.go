package guard

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/tools"
)

// The three tools of the trifecta, as the issue tells it.
var (
	files = Derive(Server{Name: "files", Grants: []sandbox.Grant{{Kind: "folder", What: "~/notes"}}}, tools.Tool{Name: "read_file", QualifiedName: "mcp__files__read_file"})
	fetch = Derive(Server{Name: "fetch"}, tools.Tool{Name: "fetch", QualifiedName: "mcp__fetch__fetch"})
	slack = Derive(Server{Name: "slack", Grants: []sandbox.Grant{{Kind: "host", What: "hooks.slack.com", Setting: "hooks.slack.com"}}},
		tools.Tool{Name: "post_message", QualifiedName: "mcp__slack__post_message"})
)

func call(session string, tl *ToolLabels, args string) Call {
	return Call{Session: session, App: "Claude Code", Tool: tl, Args: json.RawMessage(args)}
}

func TestTrifectaHeldAtTheThird(t *testing.T) {
	t.Parallel()
	tr := NewTracker("/home/p", 0)
	if v := tr.See(call("s", &files, `{"path":"/home/p/notes/tax.txt"}`)); v.Held {
		t.Fatal("reading a file was held")
	}
	if v := tr.See(call("s", &fetch, `{"url":"https://example.com/issue/42"}`)); v.Held {
		t.Fatal("fetching a page after reading a file was held")
	}
	v := tr.See(call("s", &slack, `{"text":"hello"}`))
	if !v.Held {
		t.Fatal("sending after reading a file and a page was not held")
	}
	want := "Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch. It now wants to send data through slack (to hooks.slack.com)."
	if got := v.Chain.Words(); got != want {
		t.Errorf("chain:\n got %s\nwant %s", got, want)
	}
	// Held until allowed; once, then again.
	if v := tr.See(call("s", &slack, `{}`)); !v.Held {
		t.Error("a second send was not held")
	}
	tr.Allow(call("s", &slack, `{}`), false)
	if v := tr.See(call("s", &slack, `{}`)); !v.Held {
		t.Error("allowed once let the next send through")
	}
	tr.Allow(call("s", &slack, `{}`), true)
	if v := tr.See(call("s", &slack, `{}`)); v.Held {
		t.Error("allowed for the session, a send was held")
	}
	// Another session is its own.
	if v := tr.See(call("other", &slack, `{}`)); v.Held {
		t.Error("a fresh session's send was held")
	}
	tr.End("s")
	if got := tr.Touched("s"); got != 0 {
		t.Errorf("an ended session still has %s", got)
	}
}

func TestBenignOrdersOfTwoPass(t *testing.T) {
	t.Parallel()
	three := map[string]*ToolLabels{"files": &files, "fetch": &fetch, "slack": &slack}
	for a, ta := range three {
		for b, tb := range three {
			tr := NewTracker("/home/p", 0)
			for i, tl := range []*ToolLabels{ta, tb, tb, ta} {
				if a != b && i >= 2 {
					break // the two, each once, in this order
				}
				if v := tr.See(call("s", tl, `{}`)); v.Held {
					t.Errorf("%s then %s: call %d held: %s", a, b, i+1, v.Chain.Words())
				}
			}
		}
	}
}

func TestUntrustedFirstIsSaidFirst(t *testing.T) {
	t.Parallel()
	tr := NewTracker("/home/p", 0)
	tr.See(call("s", &fetch, `{"url":"https://example.com/x"}`))
	tr.See(call("s", &files, `{"paths":["~/notes/a.txt"]}`))
	v := tr.See(Call{Session: "s", Tool: &slack})
	want := "An app read https://example.com/x through fetch, then read ~/notes/a.txt through files. It now wants to send data through slack (to hooks.slack.com)."
	if got := v.Chain.Words(); !v.Held || got != want {
		t.Errorf("held %v, chain:\n got %s\nwant %s", v.Held, got, want)
	}
}

func TestSessionlessWindow(t *testing.T) {
	t.Parallel()
	tr := NewTracker("/home/p", time.Minute)
	now := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	tr.now = func() time.Time { return now }
	c := func(tl *ToolLabels) Call { return Call{Session: "http\x00claude-code", Sessionless: true, Tool: tl} }
	tr.See(c(&files))
	now = now.Add(30 * time.Second)
	tr.See(c(&fetch))
	now = now.Add(30 * time.Second)
	if v := tr.See(c(&slack)); !v.Held {
		t.Fatal("a sessionless app's calls within the window were not followed by its name")
	}
	now = now.Add(2 * time.Minute)
	if v := tr.See(c(&slack)); v.Held {
		t.Error("after a pause longer than the window, a send was still held")
	}
}

func TestTrackerBounded(t *testing.T) {
	t.Parallel()
	tr := NewTracker("", 0)
	for i := range maxSessions + 10 {
		tr.See(call(fmt.Sprint(i), &files, `{}`))
	}
	if n := len(tr.sessions); n > maxSessions {
		t.Errorf("%d sessions followed, more than %d", n, maxSessions)
	}
}

// TestTainted: a call is tainted when its session read private data and
// untrusted content before it, whatever its own labels, so that the proxy
// can ask about its server's new hosts; the call that brings in the second
// of the two is not, nor is a session that lacks one.
func TestTainted(t *testing.T) {
	t.Parallel()
	quiet := Derive(Server{Name: "store"}, tools.Tool{Name: "backup", QualifiedName: "mcp__store__backup"})
	if quiet.Labels != 0 {
		t.Fatalf("backup's labels: %s", quiet.Labels)
	}
	tr := NewTracker("/home/p", 0)
	for _, c := range []Call{
		call("s", &quiet, `{}`),
		call("s", &files, `{"path":"/home/p/notes/tax.txt"}`),
		call("s", &quiet, `{}`),
		call("s", &fetch, `{"url":"https://example.com/issue/42"}`),
	} {
		if v := tr.See(c); v.Tainted || v.Held {
			t.Fatalf("%s: %+v before the session read both", c.Tool.Tool, v)
		}
	}
	v := tr.See(call("s", &quiet, `{"url":"https://backup.example/up"}`))
	if !v.Tainted || v.Held {
		t.Fatalf("backup after the notes and the page: %+v", v)
	}
	want := "Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch. It now wants to send data through store (to backup.example)."
	if got := v.Chain.Words(); got != want {
		t.Errorf("chain:\n got %s\nwant %s", got, want)
	}
	if v := tr.See(call("s", &slack, `{}`)); !v.Held || !v.Tainted {
		t.Errorf("a held send: %+v", v)
	}
	if v := tr.See(call("other", &files, `{}`)); v.Tainted {
		t.Errorf("another session: %+v", v)
	}
}

// TestTrackerForgetsOnlyBeyondItsBound: a session that read private data
// and untrusted content stays followed while other sessions come, up to
// the bound; beyond it, the one seen longest ago goes, not one in use.
func TestTrackerForgetsOnlyBeyondItsBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	tr := NewTracker("", 0)
	tr.now = func() time.Time { return now }
	tr.See(call("s", &files, `{}`))
	tr.See(call("s", &fetch, `{}`))
	for i := range maxSessions - 1 {
		now = now.Add(time.Second)
		tr.See(call(fmt.Sprint(i), &files, `{}`))
	}
	if v := tr.Check(call("s", &slack, `{}`)); !v.Held {
		t.Fatal("other sessions within the bound made the guard forget a tainted one")
	}
	now = now.Add(time.Second)
	tr.See(call("s", &files, `{}`)) // seen now: session 0 is the oldest
	tr.See(call("one more", &files, `{}`))
	if v := tr.Check(call("s", &slack, `{}`)); !v.Held {
		t.Error("beyond the bound, the guard forgot a session in use rather than the oldest")
	}
	if tr.Touched("0") != 0 || tr.Touched("1") == 0 {
		t.Errorf("beyond the bound, the oldest session was not the one forgotten")
	}
}
