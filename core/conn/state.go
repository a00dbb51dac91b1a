package conn

// A connection's state changes only through Status.Transition, which checks
// the one table of allowed transitions below, so every front end can trust
// that what it shows followed an allowed path. Never put a token or other
// secret into a Status: Err is shown to people.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// State is where a server's connection stands. The zero value is Pending.
type State uint8

// The states of a connection.
const (
	// Pending: approved and enabled, waiting for (or in the middle of) a
	// connection attempt.
	Pending State = iota
	// AwaitingApproval: a local or project server the person has not yet
	// approved, or whose configuration changed what it runs since they did.
	AwaitingApproval
	// Connected: initialised and serving.
	Connected
	// Failed: the last attempt or the live connection failed; Err says why.
	Failed
	// NeedsAuth: the server wants the person to sign in (again).
	NeedsAuth
	// Disabled: turned off by the person, by policy, or denied at approval.
	Disabled

	numStates = iota
)

var stateNames = [numStates]string{
	Pending:          "pending",
	AwaitingApproval: "awaiting-approval",
	Connected:        "connected",
	Failed:           "failed",
	NeedsAuth:        "needs-auth",
	Disabled:         "disabled",
}

// transitions is the one table of allowed changes from one state to another.
// Same-state transitions are not listed: they are always allowed (see
// Status.Transition). AwaitingApproval is reachable from everywhere because
// a configuration change can alter what any server runs.
var transitions = [numStates][]State{
	Pending: {
		AwaitingApproval, // its configuration changed what it runs
		Connected,
		Failed,
		NeedsAuth, // the server answered 401
		Disabled,
	},
	AwaitingApproval: {
		Pending,  // approved
		Disabled, // denied
	},
	Connected: {
		Pending, // reconnect: session expired, config reloaded, woke from sleep
		AwaitingApproval,
		Failed,
		NeedsAuth, // token expired or revoked
		Disabled,
	},
	Failed: {
		Pending, // retry
		AwaitingApproval,
		Disabled,
	},
	NeedsAuth: {
		Pending, // signed in, or NeedsAuthTTL passed
		AwaitingApproval,
		Disabled,
	},
	Disabled: {
		Pending, // enabled again
		AwaitingApproval,
	},
}

// NeedsAuthTTL is how long a NeedsAuth state is trusted before the server is
// tried again without a new sign-in. When an identity provider's token
// expires, every server behind it fails at once: without this, thirty servers
// would each probe the same expired token on every reload, wake-up and
// reconnect, flooding the provider and the person's tray for nothing.
const NeedsAuthTTL = 15 * time.Minute

// valid reports whether s is one of the declared states.
func (s State) valid() bool { return s < numStates }

// String returns the state's name: "pending", "awaiting-approval",
// "connected", "failed", "needs-auth" or "disabled".
func (s State) String() string {
	if !s.valid() {
		return fmt.Sprintf("State(%d)", uint8(s))
	}
	return stateNames[s]
}

// MarshalText returns the state's name as String gives it; a value that is
// not a declared state is an error.
func (s State) MarshalText() ([]byte, error) {
	if !s.valid() {
		return nil, fmt.Errorf("unknown connection state %d", uint8(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText sets s from a name as String gives it, matched exactly
// (lower case); any other text is an error and leaves s unchanged.
func (s *State) UnmarshalText(text []byte) error {
	i := slices.Index(stateNames[:], string(text))
	if i < 0 {
		return fmt.Errorf("unknown connection state %q", text)
	}
	*s = State(i)
	return nil
}

// CanTransition reports whether a connection may go from s to to: true when
// the table allows it or when both are the same declared state.
func (s State) CanTransition(to State) bool {
	if !s.valid() || !to.valid() {
		return false
	}
	return s == to || slices.Contains(transitions[s], to)
}

// ErrTransition is wrapped by the error Status.Transition returns for a
// change the table does not allow.
var ErrTransition = errors.New("connection state change not allowed")

// Status is a connection's state with when it began and why. It is a plain
// value: copy it freely into snapshots for front ends.
type Status struct {
	// State is the current state.
	State State
	// Since is when the connection entered State.
	Since time.Time
	// Err explains the state in plain words on one line, sanitised: the
	// error for Failed and NeedsAuth, the reason for Disabled, or "".
	Err string
}

// Transition returns the status after moving to state to at time now, with
// errText (sanitised to one line) as its Err. A change the table does not
// allow returns st unchanged and an error that wraps ErrTransition and names
// both states.
//
// A same-state transition is always allowed and is an update, not a change:
// it replaces Err but keeps Since, so a Failed server that fails again
// shows the new error while "failed for 10 minutes" stays true, and a second
// 401 does not extend NeedsAuthTTL. Callers re-asserting a state (disabling
// a disabled server) need not check first.
func (st Status) Transition(to State, now time.Time, errText string) (Status, error) {
	if !st.State.CanTransition(to) {
		return st, fmt.Errorf("%w: from %s to %s", ErrTransition, st.State, to)
	}
	next := Status{State: to, Since: now, Err: sanitize.Line(errText)}
	if to == st.State {
		next.Since = st.Since
	}
	return next, nil
}
