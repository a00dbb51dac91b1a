package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/service"
)

// TestCommandLineDecides: with an mcptray running, a command's decision
// is the command line's in the record, with its program and pid; with
// none running, the service run in the command's own process says the
// same. A command that cannot show the running mcptray its key is refused,
// and says so in plain words with what to do.
func TestCommandLineDecides(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	exe, _ := os.Executable()
	me := fmt.Sprintf("the command line (%s, pid %d)", filepath.Base(exe), os.Getpid())

	// None runs: the command's own service records it.
	h.must("permissions", "allow", "mcp__probe__first")
	words := func(l *activity.Log) []string {
		t.Helper()
		if err := l.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		rows, err := l.Query(t.Context(), activity.Filter{Kind: activity.KindTrust, Oldest: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range rows {
			out = append(out, e.TrustWords())
		}
		return out
	}

	inst, err := instance.Listen(instance.Options{Service: service.Options{Paths: h.paths, Store: h.store, Only: []string{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h.must("permissions", "block", "mcp__probe__second")
	want := []string{me + " set mcp__probe__first to allow", me + " set mcp__probe__second to block"}
	if got := words(inst.Activity); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the record says\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A program that cannot read the key (as one in a sandbox cannot).
	if err := os.Remove(control.KeyPath(h.paths)); err != nil {
		t.Fatal(err)
	}
	h.fails(1, "the running mcptray refused: this program is not one of mcptray's own tools, so it cannot change what mcptray trusts.\n"+
		"mcptray's own tools show the key it keeps in "+control.KeyPath(h.paths)+", which this program could not read",
		"permissions", "allow", "mcp__probe__third")
	// One that holds a key, but not this mcptray's.
	if err := os.WriteFile(control.KeyPath(h.paths), []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.fails(1, "run the command again", "sandbox", "off", "probe")
}
