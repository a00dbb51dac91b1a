package pins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStoreSurvivesReopen(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", FileName)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Server("weather"); ok {
		t.Fatal("a new store has pins")
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.Update("weather", func(sv *Server, ok bool) bool {
		sv.Tools, sv.Pinned, sv.Changes, sv.AcceptChanges = []Def{weather()}, now, 2, true
		return !ok
	}); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sv, ok := again.Server("weather")
	if !ok || len(sv.Tools) != 1 || !sv.Tools[0].Equal(weather()) || sv.Changes != 2 || !sv.AcceptChanges || !sv.Pinned.Equal(now) {
		t.Errorf("read back %+v, %v", sv, ok)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v, %v", fi, err)
	}
	// An update that changes nothing writes nothing.
	if err := again.Update("weather", func(*Server, bool) bool { return false }); err != nil {
		t.Fatal(err)
	}
}

func TestStoreRefusesAFileItCannotRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), ".bak") {
		t.Errorf("Open = %v, want an error that names the backup", err)
	}
}

func TestFingerprintIgnoresOrderAndSpacing(t *testing.T) {
	t.Parallel()
	a := weather()
	b := weather()
	b.InputSchema = []byte(`{ "properties": {"city": {"type": "string"}}, "type": "object" }`)
	other := Def{Name: "x", InputSchema: []byte(`{}`)}
	if Fingerprint([]Def{a, other}) != Fingerprint([]Def{other, b}) {
		t.Error("the same definitions have two fingerprints")
	}
	b.Description = "else"
	if Fingerprint([]Def{a}) == Fingerprint([]Def{b}) {
		t.Error("different definitions share a fingerprint")
	}
}

func TestStageWritesOnFlush(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		s.Stage(name, func(sv *Server, _ bool) bool { sv.Tools = []Def{weather()}; return true })
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("Stage wrote the file")
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if names := again.Names(); len(names) != 2 {
		t.Errorf("after Flush the file holds %v", names)
	}
}
