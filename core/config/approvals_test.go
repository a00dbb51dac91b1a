package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestApprovalStoreFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := &ApprovalStore{Path: filepath.Join(dir, "mcptray", "approvals.json")}
	if d, err := store.Load(); err != nil || len(d) != 0 {
		t.Fatalf("Load of a missing file = %v, %v; want none", d, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := store.Record("k1", Decision{Approval: Approved, Name: "a", File: "/x/.mcp.json", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := store.Record("k2", Decision{Approval: Denied, Name: "b", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := store.Record("k1", Decision{Approval: Denied, Name: "a", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := store.Record("k3", Decision{Approval: Undecided, Name: "c"}); err == nil {
		t.Error("recording a pending decision did not fail")
	}
	d, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 2 || d["k1"].Approval != Denied || d["k2"].Approval != Denied || !d["k2"].At.Equal(at) {
		t.Errorf("decisions %+v", d)
	}
	for _, f := range []string{store.Path, store.Path + ".bak"} {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	if st, err := os.Stat(filepath.Dir(store.Path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("folder: %v, %v; want mode 0700", st.Mode().Perm(), err)
	}
	var onDisk struct {
		Version   int                        `json:"version"`
		Decisions map[string]json.RawMessage `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(readFile(t, store.Path)), &onDisk); err != nil || onDisk.Version != 1 || len(onDisk.Decisions) != 2 {
		t.Errorf("file: %+v, %v", onDisk, err)
	}
	if !strings.Contains(readFile(t, store.Path+".bak"), `"k1"`) || strings.Contains(readFile(t, store.Path+".bak"), `"k3"`) {
		t.Errorf("backup does not hold the previous decisions")
	}
	if names := dirNames(t, filepath.Dir(store.Path)); len(names) != 2 {
		t.Errorf("folder holds %q, want approvals.json and its backup", names)
	}
}

// TestApprovalsDamaged: when the decisions cannot be read, nothing that
// needs approval runs, and the person is told why.
func TestApprovalsDamaged(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	dir := h.folder(t, "app")
	h.userFile(t, `{"mine": {"command": "mine"}}`, dir)
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"tool": {"command": "node"}}}`)
	l := h.loader(nil)
	e := entryNamed(t, l.Load(), "tool")
	if err := l.Approvals.Record(e.ApprovalKey, Decision{Approval: Approved, Name: "tool"}); err != nil {
		t.Fatal(err)
	}
	if entryNamed(t, l.Load(), "tool").Approval != Approved {
		t.Fatal("approval not recorded")
	}
	writeFile(t, l.Approvals.Path, `{"version": 1, "decisions": {`)

	set := l.Load()
	if len(set.Problems) != 1 || set.Problems[0].File != l.Approvals.Path || !strings.Contains(set.Problems[0].Message, "damaged") {
		t.Errorf("problems:%s\nwant one about the damaged approvals file", problemText(set.Problems))
	}
	if got := entryNamed(t, set, "tool").Approval; got != Undecided {
		t.Errorf("tool is %s with a damaged approvals file, want pending", got)
	}
	if got := entryNamed(t, set, "mine"); got.Approval != NotNeeded || !got.Runnable() {
		t.Errorf("a user server is %s with a damaged approvals file; it needs no approval", got.Approval)
	}
	// The damaged file is not silently replaced: the person's decisions
	// may still be recovered from it.
	if err := l.Approvals.Record(e.ApprovalKey, Decision{Approval: Approved, Name: "tool"}); err == nil {
		t.Error("Record over a damaged file succeeded")
	}
	if got := readFile(t, l.Approvals.Path); got != `{"version": 1, "decisions": {` {
		t.Errorf("damaged file rewritten to %q", got)
	}
}
