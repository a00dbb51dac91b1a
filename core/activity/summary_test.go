package activity

import (
	"testing"
	"time"
)

// TestSummaryGuardHeld: the summary counts the calls the flow guard held,
// whatever the person answered, and not those it let through when off;
// the guard's questions count as the person asked (Decision.Asked); the
// sentence says it last.
func TestSummaryGuardHeld(t *testing.T) {
	l := open(t, Options{})
	for _, d := range []Decision{Allowed, GuardAllowedOnce, GuardDeclined, GuardNoWindow, GuardBlocked, GuardOff, AskedDeclined} {
		l.RecordCall(call("Claude Code", "chat", "post", Answered, d, `{}`))
	}
	flush(t, l)
	sum, err := l.Summary(t.Context(), StartOfDay(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Held != 4 || sum.Calls != 7 {
		t.Errorf("summary %+v, want 4 held of 7 calls", sum)
	}
	if want := "Today: Claude Code made 7 calls to 1 server; you were asked 3 times; the guard held 4 calls"; sum.Sentence("Today") != want {
		t.Errorf("summary\n got %s\nwant %s", sum.Sentence("Today"), want)
	}
	if got := GuardHeldWords(1); got != "the guard held 1 call" {
		t.Errorf("GuardHeldWords(1) = %q", got)
	}
}
