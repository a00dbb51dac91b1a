package service

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/service/secretkeep"
)

// noFileHoldsBut fails the test if a file under dir other than except
// holds value.
func noFileHoldsBut(t *testing.T, dir, except, value string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == except {
			return err
		}
		if b, err := os.ReadFile(p); err == nil {
			n++
			if bytes.Contains(b, []byte(value)) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no file was searched")
	}
}

// TestMoveSecretsFromAnotherApp: a key Claude Desktop's config holds in
// plain text goes into the keychain; mcptray's own config gets the server
// with a reference, which takes over from the imported one; the server
// still gets the key; Claude Desktop's file is not touched, and no other
// file holds the key.
func TestMoveSecretsFromAnotherApp(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const value = "ghp_Plain-Text-Key-77c1"
	entry := testServer("gh")
	entry["env"] = map[string]string{"GITHUB_TOKEN": value, "LOG_LEVEL": "debug"}
	claude := filepath.Join(h.paths.UserConfigDir, "Claude", "claude_desktop_config.json")
	h.writeJSON(claude, map[string]any{"mcpServers": map[string]any{"gh": entry}})
	before, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false)
	ctx := context.Background()
	snap := waitFor(t, s, "gh connected", func(sn Snapshot) bool { return state(sn, "gh") == conn.Connected })
	if sv, _ := snap.Find("gh"); sv.Scope != config.Imported || !slices.Equal(sv.PlainKeys, []string{"GITHUB_TOKEN"}) {
		t.Fatalf("before: scope %s, plain keys %q", sv.Scope, sv.PlainKeys)
	}

	res, err := s.MoveSecrets(ctx, "gh")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Secrets, []string{"GITHUB_TOKEN"}) || res.Left != claude || res.File != h.paths.UserFile() {
		t.Errorf("MoveSecrets = %+v", res)
	}
	if after, _ := os.ReadFile(claude); !bytes.Equal(after, before) {
		t.Errorf("Claude Desktop's file changed:\n%s", after)
	}
	e, ok := s.current().Find("gh")
	if !ok || e.Scope != config.User || e.Env["GITHUB_TOKEN"] != "${secret:GITHUB_TOKEN}" || e.Env["LOG_LEVEL"] != "debug" || len(e.PlainKeys) != 0 {
		t.Fatalf("gh after the move: %+v", e)
	}
	if v, err := s.readSecret(ctx, &e.Server, "GITHUB_TOKEN"); err != nil || v != value {
		t.Errorf("the keychain holds %q (%v)", v, err)
	}
	if i := slices.IndexFunc(s.current().Suppressed, func(x config.Entry) bool { return x.Scope == config.Imported }); i < 0 {
		t.Error("Claude Desktop's gh does not give way to mcptray's")
	}
	waitFor(t, s, "gh connected from mcptray's config", func(sn Snapshot) bool {
		sv, _ := sn.Find("gh")
		return sv.Scope == config.User && sv.State == conn.Connected
	})
	if got, ok := envOf(t, s, "gh", "GITHUB_TOKEN"); !ok || got != value {
		t.Errorf("the server's GITHUB_TOKEN = %q, want the key", got)
	}
	noFileHoldsBut(t, h.dir, claude, value)

	if _, err := s.MoveSecrets(ctx, "gh"); CodeOf(err) != Invalid {
		t.Errorf("moving again: %v", err)
	}
}

// TestMoveSecretsInOwnConfig: a key in plain text in mcptray's own
// config is replaced there by a reference; neither the file nor its
// backup keeps it.
func TestMoveSecretsInOwnConfig(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const value = "sk-own-config-key-31aa"
	entry := testServer("mine")
	entry["env"] = map[string]string{"API_KEY": value}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"mine": entry, "other": testServer("other")}})
	s := h.start(false)
	ctx := context.Background()
	res, err := s.MoveSecrets(ctx, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if res.Left != "" || !slices.Equal(res.Secrets, []string{"API_KEY"}) {
		t.Errorf("MoveSecrets = %+v", res)
	}
	if _, err := os.Stat(h.paths.UserFile() + ".bak"); err != nil {
		t.Fatalf("no backup was kept: %v", err)
	}
	noFileHolds(t, h.dir, value)
	waitFor(t, s, "mine connected", func(sn Snapshot) bool { return state(sn, "mine") == conn.Connected })
	if got, _ := envOf(t, s, "mine", "API_KEY"); got != value {
		t.Errorf("the server's API_KEY = %q", got)
	}
	if _, err := s.MoveSecrets(ctx, "other"); CodeOf(err) != Invalid || !strings.Contains(err.Error(), "no key in plain text") {
		t.Errorf("a server without keys: %v", err)
	}
}

// TestSecretsOfHandRemovedServerAreForgotten: a server deleted from
// config.json by hand loses its secrets at the next reload, or at the next
// start; another server's secret of the same name stays, and a file that
// cannot be read loses nothing.
func TestSecretsOfHandRemovedServerAreForgotten(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false)
	ctx := context.Background()
	add := func(s *Service, name, value string) {
		t.Helper()
		e := testServer(name)
		e["env"] = map[string]string{"TOKEN": "${secret:TOKEN}"}
		raw, _ := json.Marshal(e)
		if _, err := s.Add(ctx, AddRequest{Name: name, Entry: raw, Secrets: map[string]string{"TOKEN": value}}); err != nil {
			t.Fatal(err)
		}
	}
	add(s, "a", "value-a")
	add(s, "b", "value-b")
	add(s, "c", "value-c")
	if n := h.store.Len(); n != 3 {
		t.Fatalf("the keychain holds %d items, want 3", n)
	}
	edit := func(fn func(map[string]json.RawMessage)) {
		t.Helper()
		u, err := config.ReadUserFile(h.paths.UserFile())
		if err != nil {
			t.Fatal(err)
		}
		fn(u.MCPServers)
		h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": u.MCPServers})
	}
	secretOf := func(s *Service, name string) string {
		v, _ := s.readSecret(ctx, &config.Server{Scope: config.User, ConfigName: name}, "TOKEN")
		return v
	}

	good, _ := os.ReadFile(h.paths.UserFile())
	os.WriteFile(h.paths.UserFile(), []byte(`{"mcpServers": {`), 0o600)
	s.reload()
	if n := h.store.Len(); n != 3 {
		t.Errorf("a broken config.json made the keychain lose secrets: %d left", n)
	}
	os.WriteFile(h.paths.UserFile(), good, 0o600)

	edit(func(m map[string]json.RawMessage) { delete(m, "a") })
	s.reload()
	if n := h.store.Len(); n != 2 || secretOf(s, "a") != "" || secretOf(s, "b") != "value-b" {
		t.Errorf("after a was removed by hand: %d items, b's %q", n, secretOf(s, "b"))
	}

	// While no mcptray runs.
	s.Close()
	edit(func(m map[string]json.RawMessage) { delete(m, "b") })
	s = h.start(false)
	if n := h.store.Len(); n != 1 || secretOf(s, "c") != "value-c" {
		t.Errorf("after b was removed while mcptray was not running: %d items, c's %q", n, secretOf(s, "c"))
	}
	idx, _ := os.ReadFile(filepath.Join(h.paths.Dir(), secretkeep.IndexFile))
	if strings.Contains(string(idx), "value-") || strings.Contains(string(idx), `"b"`) {
		t.Errorf("the index holds a value or a forgotten server:\n%s", idx)
	}
}

// TestSecretsOfAProjectServer: a project folder no longer read keeps its
// servers' secrets; a server deleted from its .mcp.json loses them.
func TestSecretsOfAProjectServer(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	entry := testServer("p")
	entry["env"] = map[string]string{"K": "${secret:K}"}
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"p": entry}})
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{}, "folders": []string{proj}})
	s := h.start(false)
	ctx := context.Background()
	if err := s.SetSecret(ctx, SecretRequest{Server: "p", Name: "K", Value: "project-secret"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveFolder(ctx, proj); err != nil {
		t.Fatal(err)
	}
	if n := h.store.Len(); n != 1 {
		t.Fatalf("removing the folder from mcptray's list forgot its secret (%d items)", n)
	}
	if _, err := s.AddFolder(ctx, proj); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{}})
	s.reload()
	if n := h.store.Len(); n != 0 {
		t.Errorf("a server deleted from .mcp.json kept its secret (%d items)", n)
	}
}

// TestSecretsStoredBeforeTheIndex: a secret kept before mcptray kept its
// index (or whose reference was written by hand) is indexed when its
// reference is read, and forgotten when its server goes.
func TestSecretsStoredBeforeTheIndex(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	ctx := context.Background()
	entry := testServer("old")
	entry["env"] = map[string]string{"K": "${secret:K}"}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"old": entry}})
	if err := h.store.Set(ctx, secretkeep.Key(&config.Server{Scope: config.User, ConfigName: "old"}, "K"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	s := h.start(false)
	if n := h.store.Len(); n != 1 {
		t.Fatalf("starting forgot a secret in use (%d items)", n)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{}})
	s.reload()
	if n := h.store.Len(); n != 0 {
		t.Errorf("the secret of a server deleted by hand stayed (%d items)", n)
	}
}
