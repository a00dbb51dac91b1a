package statefile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seen is a value as tests keep it.
type seen struct {
	At time.Time `json:"at"`
	N  int       `json:"n"`
}

func testOptions(path string) Options[seen] {
	return Options[seen]{Path: path, Field: "things", MaxSize: 4 << 10, Max: 4,
		When: func(v seen) time.Time { return v.At }, Every: time.Hour}
}

// writeThings writes a state file holding n things, thing-0 the oldest.
func writeThings(t *testing.T, path string, n int, base time.Time) {
	t.Helper()
	things := map[string]seen{}
	for i := range n {
		things[fmt.Sprintf("thing-%d", i)] = seen{At: base.Add(time.Duration(i) * time.Minute), N: i}
	}
	b, err := json.Marshal(map[string]any{"version": 1, "things": things})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTooLargeIsNoState: a file larger than MaxSize (another program's,
// or one grown by a fault) is not read at all: the state is empty, the
// error says why, and the next write replaces it.
func TestTooLargeIsNoState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	big := `{"version":1,"things":{"x":{"n":1,"pad":"` + strings.Repeat("a", 8<<10) + `"}}}`
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(testOptions(path))
	if err == nil || !strings.Contains(err.Error(), "larger than it can be") || len(f.Values()) != 0 {
		t.Fatalf("a file too large: %v, %v", f.Values(), err)
	}
	f.Set("y", seen{At: time.Now(), N: 2})
	f.Save()
	got, err := f.Read()
	if err != nil || len(got) != 1 || got["y"].N != 2 {
		t.Errorf("after a write: %v, %v", got, err)
	}
}

// TestBoundedOnRead: a file holding more values than Max (within
// MaxSize) keeps only the most recent ones, and so does its next write.
func TestBoundedOnRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	base := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	writeThings(t, path, 12, base)
	f, err := Open(testOptions(path))
	if err != nil {
		t.Fatal(err)
	}
	got := f.Values()
	if len(got) != 4 {
		t.Fatalf("%d values kept, want 4: %v", len(got), got)
	}
	for i := 8; i < 12; i++ {
		if _, ok := got[fmt.Sprintf("thing-%d", i)]; !ok {
			t.Errorf("thing-%d, among the newest, was not kept: %v", i, got)
		}
	}
	f.Set("new", seen{At: base.Add(time.Hour)})
	f.Save()
	b, _ := os.ReadFile(path)
	var file struct {
		Version int             `json:"version"`
		Things  map[string]seen `json:"things"`
	}
	if err := json.Unmarshal(b, &file); err != nil || file.Version != 1 || len(file.Things) != 4 {
		t.Errorf("written: %s (%v)", b, err)
	}
	if _, ok := file.Things["thing-8"]; ok {
		t.Error("the oldest was kept over the new one")
	}
}

// TestMergedWithWhatIsThere: two mcptrays keeping one file keep what
// each learned; for one key, the more recent value wins whoever writes
// last.
func TestMergedWithWhatIsThere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	a, _ := Open(testOptions(path))
	b, _ := Open(testOptions(path))
	a.Set("a-only", seen{At: now, N: 1})
	a.Set("both", seen{At: now.Add(time.Minute), N: 10})
	b.Set("b-only", seen{At: now, N: 2})
	b.Set("both", seen{At: now, N: 20}) // older than a's
	a.Save()
	b.Save()
	got, err := a.Read()
	if err != nil {
		t.Fatal(err)
	}
	if got["a-only"].N != 1 || got["b-only"].N != 2 || got["both"].N != 10 {
		t.Errorf("merged: %v", got)
	}
}

// TestLinkReplaced: a link put where the state is kept, to another of the
// person's files, is replaced by the state's file: what it points to is
// never written.
func TestLinkReplaced(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(target, []byte("the person's own"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.json")
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("no links here: %v", err)
	}
	f, _ := Open(testOptions(path))
	f.Set("x", seen{At: time.Now(), N: 1})
	f.Save()
	if b, _ := os.ReadFile(target); string(b) != "the person's own" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by the file: %v, %v", fi, err)
	}
}

// TestWriterAtMostOncePerEvery: the writer writes the first news at once,
// then no more often than Every however often it is asked, and what is
// left when its context ends; with nothing new, it writes nothing.
func TestWriterAtMostOncePerEvery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	writes := make(chan struct{}, 16)
	o := testOptions(path)
	o.Saved = func() { writes <- struct{}{} }
	f, _ := Open(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Write(ctx)
	}()
	now := time.Now()
	f.Set("first", seen{At: now})
	select {
	case <-writes:
	case <-time.After(30 * time.Second):
		t.Fatal("the first news was not written")
	}
	for i := range 5 {
		f.Set(fmt.Sprintf("later-%d", i), seen{At: now.Add(time.Duration(i) * time.Second)})
	}
	f.Poke()
	cancel()
	<-done
	if n := len(writes); n != 1 {
		t.Errorf("%d writes after the first within Every, want 1 (the last)", n)
	}
	if got, _ := f.Read(); len(got) != 4 {
		t.Errorf("what was left was not written: %v", got)
	}
	f.Save() // nothing new
	if n := len(writes); n != 1 {
		t.Errorf("a write with nothing new: %d writes", n)
	}
}

// TestReplaceIsTheWholeState: Replace writes exactly what it is given, at
// once: a value the file held and the new state does not is gone, and a
// write that cannot be made says so.
func TestReplaceIsTheWholeState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	base := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	writeThings(t, path, 3, base)
	f, err := Open(testOptions(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Replace(map[string]seen{"thing-1": {At: base, N: 7}}); err != nil {
		t.Fatal(err)
	}
	got, err := f.Read()
	if err != nil || len(got) != 1 || got["thing-1"].N != 7 {
		t.Errorf("after Replace the file holds %v, %v", got, err)
	}
	if v := f.Values(); len(v) != 1 || v["thing-1"].N != 7 {
		t.Errorf("after Replace the state is %v", v)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := f.Replace(map[string]seen{}); err == nil {
		t.Error("Replace over a folder said nothing")
	}
}
