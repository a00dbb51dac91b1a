package activity

import (
	"encoding/json"
	"time"
)

// Kind is what a row records.
type Kind string

const (
	// KindCall is a gateway call of a tool.
	KindCall Kind = "call"
	// KindTrust is one of the person's trust decisions.
	KindTrust Kind = "trust"
)

// Outcome is what came of a call.
type Outcome string

const (
	// Answered: the tool answered.
	Answered Outcome = "answered"
	// ToolFailed: the tool answered with an error (isError).
	ToolFailed Outcome = "failed"
	// Refused: a permission kept the call from its server (blocked, the
	// person declined, nobody answered, no window to ask in).
	Refused Outcome = "refused"
	// Unavailable: the server could not be reached, or mcptray was
	// stopping; Reason says why.
	Unavailable Outcome = "unavailable"
	// Cancelled: the app gave up waiting.
	Cancelled Outcome = "cancelled"
)

// Outcomes are the outcomes a filter may name.
var Outcomes = []Outcome{Answered, ToolFailed, Refused, Unavailable, Cancelled}

// Decision is what the tool's permission decided.
type Decision string

const (
	// Allowed: the tool's permission let it run without asking.
	Allowed Decision = "allowed"
	// AskedAllowed: the person was asked and said yes.
	AskedAllowed Decision = "asked-allowed"
	// AskedDeclined: the person was asked and said no.
	AskedDeclined Decision = "asked-declined"
	// AskedUnanswered: the person was asked and did not answer in time.
	AskedUnanswered Decision = "asked-unanswered"
	// NoWindow: the tool needs the person's OK, and there was no window
	// to ask in.
	NoWindow Decision = "no-window"
	// Blocked: the tool's permission is block.
	Blocked Decision = "blocked"

	// The flow guard's decisions (core/guard): the session had read
	// private data and untrusted content, and the call could send data
	// out. Reason holds the chain in words.
	GuardAllowedOnce    Decision = "guard-allowed-once"
	GuardAllowedSession Decision = "guard-allowed-session"
	GuardDeclined       Decision = "guard-declined"
	GuardUnanswered     Decision = "guard-unanswered"
	GuardNoWindow       Decision = "guard-no-window"
	GuardBlocked        Decision = "guard-blocked"
	// GuardOff: the guard would have held the call, and is off.
	GuardOff Decision = "guard-off"
)

// Asked says whether the person was asked.
func (d Decision) Asked() bool {
	return d == AskedAllowed || d == AskedDeclined || d == AskedUnanswered ||
		d == GuardAllowedOnce || d == GuardAllowedSession || d == GuardDeclined || d == GuardUnanswered
}

// Call is one gateway call as the gateway hands it over. Arguments are as
// the app sent them: the writer keeps their shape, or their masked values
// with Keep arguments, never them as they are.
type Call struct {
	Time time.Time
	// App is the app's name as people know it ("Claude Code"), else the
	// name it gave in initialize; Face is "stdio" or "http".
	App, Face string
	// Server is the server's name in mcptray, Tool its own name for the
	// tool.
	Server, Tool string
	Duration     time.Duration
	Outcome      Outcome
	// Reason says why a call was refused or unavailable.
	Reason     string
	Decision   Decision
	ResultSize int
	Arguments  json.RawMessage
}

// TrustAction is a kind of trust decision.
type TrustAction string

const (
	Approved         TrustAction = "approve"
	Denied           TrustAction = "deny"
	SignedIn         TrustAction = "sign-in"
	SignedOut        TrustAction = "sign-out"
	PermissionSet    TrustAction = "permission"
	ToolChangeAccept TrustAction = "accept-tool-change"
	ToolChangeKeep   TrustAction = "keep-tool-change-held"
	SandboxAllowance TrustAction = "sandbox-allow"
	// GuardSet: the flow guard's mode, or a tool's labels, changed.
	GuardSet TrustAction = "guard"
	// SandboxChecked: mcptray checked its sandbox on this computer
	// (Target), and Detail says what held.
	SandboxChecked TrustAction = "sandbox-check"
)

// Trust is one of the person's trust decisions: Action on Target (a
// server's name, or a tool's qualified name), with Detail (the permission
// given, what the sandbox allows…), made with By.
type Trust struct {
	Time   time.Time
	Action TrustAction
	Target string
	Detail string
	// By is which of the person's tools made the decision, in words:
	// "the window (mcptray, pid 4242)", "the command line", "the tray".
	// It is kept in the row's app column, as a call's app is who made the
	// call. "" (and rows from before mcptray said who) reads "you".
	By string
}

// Entry is one row of the record as read back.
type Entry struct {
	ID   int64     `json:"id"`
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`
	// App is the app that made a call; for a trust decision, which of the
	// person's tools made it (Trust.By).
	App      string        `json:"app,omitempty"`
	Face     string        `json:"face,omitempty"`
	Server   string        `json:"server,omitempty"`
	Tool     string        `json:"tool,omitempty"`
	Duration time.Duration `json:"durationNs,omitempty"`
	Outcome  Outcome       `json:"outcome,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	Decision Decision      `json:"decision,omitempty"`
	// ResultSize is the result's content in bytes (text, and data as
	// sent, base64).
	ResultSize int `json:"resultSize,omitempty"`
	// Arguments is the arguments' shape, or their masked values when Keep
	// arguments was on (ArgumentsKept): JSON either way.
	Arguments     string `json:"arguments,omitempty"`
	ArgumentsKept bool   `json:"argumentsKept,omitempty"`
	// Action, Target and Detail are a trust decision's.
	Action TrustAction `json:"action,omitempty"`
	Target string      `json:"target,omitempty"`
	Detail string      `json:"detail,omitempty"`

	prev, hash []byte
}
