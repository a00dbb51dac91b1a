package sets

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatchReadsAHandEditAndRefusesABadOne: sets.json edited by hand is
// read at once and told to those who follow; a half-written file, and one
// with a mistake, are refused in words while the last good sets stay; the
// file fixed ends the problem. The Keeper's own writes tell no one twice.
func TestWatchReadsAHandEditAndRefusesABadOne(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", FileName)
	k, err := Open(path)
	must(t, err)
	told := make(chan Choices, 16)
	k.Follow(func(c Choices) { told <- c })
	<-told // the choices now
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 16)
	run, err := k.Watch(ctx, slog.New(slog.DiscardHandler), 20*time.Millisecond, func() { changed <- struct{}{} })
	must(t, err)
	done := make(chan struct{})
	go func() { run(); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	wait := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no reading after %s", what)
		}
	}

	// By hand: a set, given to Cursor.
	must(t, os.WriteFile(path, []byte(`{"version":1,"sets":[{"name":"Work","servers":["notes"]}],"apps":{"cursor":"Work"}}`), 0o600))
	wait("a hand edit")
	select {
	case c := <-told:
		if g := c.For("cursor", true); g.Name() != "the Work set" {
			t.Errorf("followers were told %+v", c)
		}
	default:
		t.Fatal("the hand edit was not told to those who follow")
	}
	if now := k.Choices(); k.Problem() != "" || now.For("cursor", true).Name() != "the Work set" {
		t.Errorf("after the hand edit: %q, %+v", k.Problem(), k.Choices())
	}

	// Half written, then a mistake: refused, the Work set stays.
	for _, bad := range []struct{ body, says string }{
		{`{"version":1,"sets":[{"name":"Wo`, "is not as mcptray writes it"},
		{`{"version":1,"apps":{"cursor":"Ghost"}}`, `no set called "Ghost"`},
	} {
		must(t, os.WriteFile(path, []byte(bad.body), 0o600))
		wait("a bad file")
		if p := k.Problem(); !strings.Contains(p, bad.says) || !strings.Contains(p, "the sets stay as they were until it is fixed") {
			t.Errorf("the problem of %s: %q", bad.body, p)
		}
		if now := k.Choices(); now.For("cursor", true).Name() != "the Work set" {
			t.Errorf("a bad file changed the sets: %+v", k.Choices())
		}
		select {
		case c := <-told:
			t.Errorf("a bad file was told to those who follow: %+v", c)
		default:
		}
	}

	// The Keeper's own change ends the problem and is told once.
	_, err = k.Modify(func(c *Choices) error { return c.Give("zed", "Work") })
	must(t, err)
	<-told
	if k.Problem() != "" {
		t.Errorf("after a change written whole: %q", k.Problem())
	}
	// A hand edit after it is the next thing told: the watcher, reading
	// the Keeper's own write, told no one.
	must(t, os.WriteFile(path, []byte(`{"version":1,"sets":[{"name":"Home","servers":["calendar"]}]}`), 0o600))
	wait("a second hand edit")
	if c := <-told; len(c.Sets) != 1 || c.Sets[0].Name != "Home" {
		t.Errorf("told after the Keeper's own write: %+v", c)
	}
	select {
	case c := <-told:
		t.Errorf("told once more: %+v", c)
	default:
	}
}
