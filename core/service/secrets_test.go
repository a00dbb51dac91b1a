package service

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
)

// noFileHolds fails the test if any file under dir holds value.
func noFileHolds(t *testing.T, dir, value string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // a socket or a file gone meanwhile
		}
		n++
		if strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("searched %d files: %v", n, err)
	}
}

func envOf(t *testing.T, s *Service, server, name string) (string, bool) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"name": name})
	res, err := s.Call(context.Background(), CallRequest{Server: server, Tool: "env", Arguments: args})
	if err != nil {
		t.Fatalf("calling env on %s: %v", server, err)
	}
	return textOf(res.Content), !res.IsError
}

// TestSecretsLifeCycle: a secret given to Add reaches the server's
// environment and no file; unsetting it makes the server need it, and
// setting it again brings it back; Remove forgets it.
func TestSecretsLifeCycle(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false)
	ctx := context.Background()
	const value = "ghp_Secret-Value-4e1f9"
	entry := testServer("gh")
	entry["env"] = map[string]string{"GITHUB_TOKEN": "${secret:GITHUB_TOKEN}"}
	raw, _ := json.Marshal(entry)
	res, err := s.Add(ctx, AddRequest{Name: "gh", Entry: raw, Secrets: map[string]string{"GITHUB_TOKEN": value}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Server.SecretNames; len(got) != 1 || got[0] != "GITHUB_TOKEN" {
		t.Errorf("SecretNames = %q", got)
	}
	waitFor(t, s, "gh connected", func(sn Snapshot) bool { return state(sn, "gh") == conn.Connected })
	if got, ok := envOf(t, s, "gh", "GITHUB_TOKEN"); !ok || got != value {
		t.Errorf("the server's GITHUB_TOKEN = %q, want the secret", got)
	}
	if list, err := s.Secrets(ctx, "gh"); err != nil || len(list) != 1 || !list[0].Set {
		t.Errorf("Secrets = %+v, %v", list, err)
	}
	noFileHolds(t, h.dir, value)

	if err := s.UnsetSecret(ctx, SecretRequest{Server: "gh", Name: "GITHUB_TOKEN"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Retry(ctx, "gh"); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, s, "gh needing its secret", func(sn Snapshot) bool {
		sv, _ := sn.Find("gh")
		return sv.State == conn.Failed && sv.Fix.Action == SetSecretAction
	})
	if sv, _ := snap.Find("gh"); sv.Reason != "needs GITHUB_TOKEN" || sv.Fix.Secret != "GITHUB_TOKEN" || sv.Fix.Label != "Enter GITHUB_TOKEN…" {
		t.Errorf("gh = %q %+v", sv.Reason, sv.Fix)
	}
	if list, _ := s.Secrets(ctx, "gh"); len(list) != 1 || list[0].Set {
		t.Errorf("after unset: %+v", list)
	}

	if err := s.SetSecret(ctx, SecretRequest{Server: "gh", Name: "NOPE", Value: "x"}); CodeOf(err) != Invalid || !strings.Contains(err.Error(), "its secrets are GITHUB_TOKEN") {
		t.Errorf("a secret it does not refer to: %v", err)
	}
	if err := s.SetSecret(ctx, SecretRequest{Server: "gh", Name: "GITHUB_TOKEN", Value: "two\nlines"}); CodeOf(err) != Invalid || strings.Contains(err.Error(), "two") {
		t.Errorf("a value with a line break: %v", err)
	}
	if err := s.SetSecret(ctx, SecretRequest{Server: "gh", Name: "GITHUB_TOKEN", Value: value + "2"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "gh connected again", func(sn Snapshot) bool { return state(sn, "gh") == conn.Connected })
	if got, _ := envOf(t, s, "gh", "GITHUB_TOKEN"); got != value+"2" {
		t.Errorf("after set: %q", got)
	}

	if _, err := s.Remove(ctx, "gh"); err != nil {
		t.Fatal(err)
	}
	if n := h.store.Len(); n != 0 {
		t.Errorf("after Remove the keychain holds %d items, want none", n)
	}
}

// TestAddWithSecretsWritesNothingOnFailure: a refused Add changes neither
// the file nor the keychain, nor another server's secret.
func TestAddWithSecretsWritesNothingOnFailure(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false)
	ctx := context.Background()
	entry := testServer("a")
	entry["env"] = map[string]string{"K": "${secret:K}"}
	raw, _ := json.Marshal(entry)
	if _, err := s.Add(ctx, AddRequest{Name: "a", Entry: raw, Secrets: map[string]string{"OTHER": "v"}}); CodeOf(err) != Invalid {
		t.Errorf("a secret the entry does not refer to: %v", err)
	}
	if _, err := os.Stat(h.paths.UserFile()); err == nil || h.store.Len() != 0 {
		t.Errorf("a refused Add wrote something (file: %v, keychain: %d)", err, h.store.Len())
	}
	if _, err := s.Add(ctx, AddRequest{Name: "a", Entry: raw, Secrets: map[string]string{"K": "first"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, AddRequest{Name: "a", Entry: raw, Secrets: map[string]string{"K": "second"}}); CodeOf(err) != Invalid {
		t.Errorf("adding a taken name: %v", err)
	}
	e, _ := s.current().Find("a")
	if v, err := s.readSecret(ctx, &e.Server, "K"); err != nil || v != "first" {
		t.Errorf("the first server's secret became %q (%v)", v, err)
	}
}
