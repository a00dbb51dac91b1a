package conn

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
)

// TestSecretReachesTheServer starts a server whose env refers to a secret,
// and asks the server what it got.
func TestSecretReachesTheServer(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	opts := testOptions()
	opts.Secrets = func(_ context.Context, s *config.Server, name string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, s.Name+"/"+name)
		if name == "API_TOKEN" {
			return "tok-123", nil
		}
		return "", secret.ErrNotFound
	}
	m := newTestManager(t, opts)
	e := stdioEntry("with-secret")
	e.Env = map[string]string{"API_TOKEN": "${secret:API_TOKEN}", "AUTH": "Bearer ${secret:API_TOKEN}"}
	missing := stdioEntry("missing")
	missing.Env = map[string]string{"OTHER": "${secret:OTHER}"}
	if err := m.Apply(setOf(e, missing)); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "with-secret", Connected)
	for name, want := range map[string]string{"API_TOKEN": "tok-123", "AUTH": "Bearer tok-123"} {
		args, _ := json.Marshal(map[string]string{"name": name})
		res, err := m.CallTool(context.Background(), "with-secret", "env", args)
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(mcp.TextContent).Text != want {
			t.Errorf("env %s = %+v, %v; want %q", name, res, err, want)
		}
	}
	info := waitState(t, m, "missing", Failed)
	if info.Status.Err != "needs OTHER, a secret that has not been entered" {
		t.Errorf("a missing secret: %q", info.Status.Err)
	}
	if name, ok := MissingSecret(info.Status.Err); !ok || name != "OTHER" {
		t.Errorf("MissingSecret(%q) = %q, %v", info.Status.Err, name, ok)
	}
}

func TestSecretReadFailureIsNotAMissingSecret(t *testing.T) {
	t.Parallel()
	opts := testOptions()
	opts.Secrets = func(context.Context, *config.Server, string) (string, error) {
		return "", &secret.UnavailableError{Reason: "no Secret Service is running", Fix: "install gnome-keyring"}
	}
	m := newTestManager(t, opts)
	e := stdioEntry("locked")
	e.Env = map[string]string{"K": "${secret:K}"}
	if err := m.Apply(setOf(e)); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "locked", Failed)
	if _, ok := MissingSecret(info.Status.Err); ok || !strings.Contains(info.Status.Err, "no Secret Service is running") {
		t.Errorf("reason = %q", info.Status.Err)
	}
}
