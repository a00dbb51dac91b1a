package cli

import (
	"bytes"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestServeSaysServersSettledBeforeItLooked: a server that connected (or
// failed) before mcptray serve first looked at the states has no change
// left to print; serve says its state at once, else "a: connected" never
// appears (a race the e2e tests lost under load).
func TestServeSaysServersSettledBeforeItLooked(t *testing.T) {
	var out bytes.Buffer
	c := &cmdContext{Env: Env{Stdout: &out}}
	c.printSettled(map[string]serverLine{
		"b": {state: service.Connected.String()},
		"a": {state: service.Pending.String()},
		"c": {state: service.Failed.String(), why: "it exited"},
	})
	if got, want := out.String(), "b: connected\nc: failed — it exited\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
