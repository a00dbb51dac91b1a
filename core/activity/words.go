package activity

import (
	"fmt"
	"time"
)

// Words says o as people read it.
func (o Outcome) Words() string {
	switch o {
	case Answered:
		return "answered"
	case ToolFailed:
		return "the tool failed"
	case Refused:
		return "refused"
	case Unavailable:
		return "unavailable"
	case Cancelled:
		return "cancelled by the app"
	}
	return string(o)
}

// Words says d as people read it.
func (d Decision) Words() string {
	switch d {
	case Allowed:
		return "allowed"
	case AskedAllowed:
		return "you were asked: allowed"
	case AskedDeclined:
		return "you were asked: declined"
	case AskedUnanswered:
		return "you were asked: no answer"
	case Blocked:
		return "blocked"
	case NoWindow:
		return "needs your OK: no window to ask in"
	case GuardAllowedOnce:
		return "held by the guard, you were asked: allowed once"
	case GuardAllowedSession:
		return "held by the guard, you were asked: allowed for the session"
	case GuardDeclined:
		return "held by the guard, you were asked: declined"
	case GuardUnanswered:
		return "held by the guard, you were asked: no answer"
	case GuardNoWindow:
		return "held by the guard: no window to ask in"
	case GuardBlocked:
		return "blocked by the guard"
	case GuardOff:
		return "the guard would have held it, and is off"
	}
	return string(d)
}

// TrustWords says a trust decision as people read it, with who made it:
// "the window (mcptray, pid 4242) approved github"; "you approved github"
// for a row that does not say. Names are as written: sanitise before
// showing.
func (e Entry) TrustWords() string {
	who := e.App
	if who == "" {
		who = "you"
	}
	switch e.Action {
	case Approved:
		return who + " approved " + e.Target
	case Denied:
		return who + " denied " + e.Target
	case SignedIn:
		return who + " signed in to " + e.Target
	case SignedOut:
		return who + " signed out of " + e.Target
	case PermissionSet:
		return fmt.Sprintf("%s set %s to %s", who, e.Target, e.Detail)
	case ToolChangeAccept:
		return who + " accepted the changed tool " + e.Target
	case ToolChangeKeep:
		return who + " kept the changed tool " + e.Target + " held"
	case SandboxAllowance:
		return fmt.Sprintf("%s let %s %s", who, e.Target, e.Detail)
	case GuardSet:
		return fmt.Sprintf("%s set the guard of %s: %s", who, e.Target, e.Detail)
	case SandboxChecked:
		return fmt.Sprintf("%s checked the sandbox on %s: %s", who, e.Target, e.Detail)
	case RecordReset:
		return fmt.Sprintf("%s started the activity record anew: %s", who, e.Detail)
	}
	return fmt.Sprintf("%s %s %s %s", who, e.Action, e.Target, e.Detail)
}

// DurationWords says how long a call took: "3 ms", "1.2 s".
func DurationWords(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// SizeWords says a result's size: "12 B", "3.4 kB".
func SizeWords(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
