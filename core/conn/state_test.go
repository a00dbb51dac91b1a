package conn

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var allStates = []State{Pending, AwaitingApproval, Connected, Failed, NeedsAuth, Disabled}

func TestAllStatesListed(t *testing.T) {
	t.Parallel()
	if len(allStates) != numStates {
		t.Fatalf("test lists %d states, package declares %d", len(allStates), numStates)
	}
}

func TestStateText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    State
		want string
	}{
		{Pending, "pending"},
		{AwaitingApproval, "awaiting-approval"},
		{Connected, "connected"},
		{Failed, "failed"},
		{NeedsAuth, "needs-auth"},
		{Disabled, "disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			text, err := tt.s.MarshalText()
			if err != nil || string(text) != tt.want {
				t.Errorf("MarshalText() = %q, %v; want %q", text, err, tt.want)
			}
			var back State
			if err := back.UnmarshalText(text); err != nil || back != tt.s {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, tt.s)
			}
		})
	}
}

func TestStateTextErrors(t *testing.T) {
	t.Parallel()
	if got := State(42).String(); got != "State(42)" {
		t.Errorf("State(42).String() = %q", got)
	}
	if _, err := State(numStates).MarshalText(); err == nil {
		t.Error("MarshalText of an undeclared state succeeded")
	}
	for _, in := range []string{"", "Connected", "CONNECTED", "needs_auth", "awaiting approval", " pending", "unknown"} {
		s := Failed
		if err := s.UnmarshalText([]byte(in)); err == nil {
			t.Errorf("UnmarshalText(%q) succeeded with %v", in, s)
		}
		if s != Failed {
			t.Errorf("UnmarshalText(%q) changed the state to %v on error", in, s)
		}
	}
}

func TestStateJSON(t *testing.T) {
	t.Parallel()
	in := map[string]State{"a": NeedsAuth, "b": AwaitingApproval}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"needs-auth","b":"awaiting-approval"}`; string(data) != want {
		t.Errorf("json.Marshal = %s, want %s", data, want)
	}
	var out map[string]State
	if err := json.Unmarshal(data, &out); err != nil || out["a"] != NeedsAuth || out["b"] != AwaitingApproval {
		t.Errorf("json.Unmarshal = %v, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"a":"asleep"}`), &out); err == nil {
		t.Error("json.Unmarshal accepted an unknown state")
	}
}

// allowed is the design's transition list written out by hand, apart from
// the table in state.go, so that a change to either shows up here. Every
// state may also stay where it is.
var allowed = map[[2]State]bool{
	{Pending, AwaitingApproval}: true,
	{Pending, Connected}:        true,
	{Pending, Failed}:           true,
	{Pending, NeedsAuth}:        true,
	{Pending, Disabled}:         true,

	{AwaitingApproval, Pending}:  true, // approved
	{AwaitingApproval, Disabled}: true, // denied

	{Connected, Pending}:          true, // reconnect
	{Connected, AwaitingApproval}: true,
	{Connected, Failed}:           true,
	{Connected, NeedsAuth}:        true,
	{Connected, Disabled}:         true,

	{Failed, Pending}:          true, // retry
	{Failed, AwaitingApproval}: true,
	{Failed, Disabled}:         true,

	{NeedsAuth, Pending}:          true, // signed in, or TTL passed
	{NeedsAuth, AwaitingApproval}: true,
	{NeedsAuth, Disabled}:         true,

	{Disabled, Pending}:          true,
	{Disabled, AwaitingApproval}: true,
}

func TestCanTransitionEveryPair(t *testing.T) {
	t.Parallel()
	for _, from := range allStates {
		for _, to := range allStates {
			want := from == to || allowed[[2]State{from, to}]
			if got := from.CanTransition(to); got != want {
				t.Errorf("%v.CanTransition(%v) = %v, want %v", from, to, got, want)
			}
		}
	}
}

func TestCanTransitionUndeclared(t *testing.T) {
	t.Parallel()
	bad := State(numStates)
	for _, s := range allStates {
		if s.CanTransition(bad) || bad.CanTransition(s) {
			t.Errorf("transition between %v and %v allowed", s, bad)
		}
	}
	if bad.CanTransition(bad) {
		t.Errorf("%v.CanTransition(itself) allowed", bad)
	}
}

func TestAwaitingApprovalFromEverywhere(t *testing.T) {
	t.Parallel()
	for _, s := range allStates {
		if !s.CanTransition(AwaitingApproval) {
			t.Errorf("%v cannot go back to awaiting-approval when its config changes", s)
		}
	}
}

func TestStatusTransition(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	tests := []struct {
		name    string
		from    Status
		to      State
		errText string
		want    Status
		wantErr bool
	}{
		{
			"connect",
			Status{State: Pending, Since: t0},
			Connected, "",
			Status{State: Connected, Since: t1},
			false,
		},
		{
			"fail with reason",
			Status{State: Connected, Since: t0},
			Failed, "server exited (status 1)",
			Status{State: Failed, Since: t1, Err: "server exited (status 1)"},
			false,
		},
		{
			"error text sanitised to one line",
			Status{State: Pending, Since: t0},
			Failed, "bad\u202E\r\nthing\u200B happened ",
			Status{State: Failed, Since: t1, Err: "bad thing happened"},
			false,
		},
		{
			"same state updates error, keeps since",
			Status{State: Failed, Since: t0, Err: "old"},
			Failed, "new",
			Status{State: Failed, Since: t0, Err: "new"},
			false,
		},
		{
			"repeated needs-auth does not extend its TTL",
			Status{State: NeedsAuth, Since: t0, Err: "sign in"},
			NeedsAuth, "sign in",
			Status{State: NeedsAuth, Since: t0, Err: "sign in"},
			false,
		},
		{
			"leaving a state clears its error",
			Status{State: Failed, Since: t0, Err: "old"},
			Pending, "",
			Status{State: Pending, Since: t1},
			false,
		},
		{
			"zero status is pending",
			Status{},
			NeedsAuth, "token expired",
			Status{State: NeedsAuth, Since: t1, Err: "token expired"},
			false,
		},
		{
			"not allowed",
			Status{State: Failed, Since: t0, Err: "old"},
			Connected, "",
			Status{State: Failed, Since: t0, Err: "old"},
			true,
		},
		{
			"approval cannot be skipped",
			Status{State: AwaitingApproval, Since: t0},
			Connected, "",
			Status{State: AwaitingApproval, Since: t0},
			true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.from.Transition(tt.to, t1, tt.errText)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Transition error = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrTransition) {
					t.Errorf("error %v does not wrap ErrTransition", err)
				}
				if msg := err.Error(); !strings.Contains(msg, tt.from.State.String()) || !strings.Contains(msg, tt.to.String()) {
					t.Errorf("error %q does not name both %v and %v", msg, tt.from.State, tt.to)
				}
			}
			if got != tt.want {
				t.Errorf("Transition = %+v, want %+v", got, tt.want)
			}
		})
	}
}
