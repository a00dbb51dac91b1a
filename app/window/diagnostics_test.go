package window

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

func TestDiagnosticsLeaveSecretsOut(t *testing.T) {
	since := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	sv := service.Server{
		Name: "db", ConfigName: "db", Scope: config.User, Transport: config.Stdio,
		Origin:  config.Origin{File: "/home/me/.config/mcptray/config.json", Line: 4, Column: 5},
		Command: "db-mcp", Args: []string{"--token", "tok-AAAA", "--api-key=KEY123", "--url", "postgres://u:pw@host/db?sslkey=zz", "--ro"},
		EnvNames: []string{"DB_PASSWORD"}, State: service.Failed, Since: since, Failures: 3,
		Reason: "it exited with status 1", Fix: service.Fix{Action: service.RetryAction, Label: "Retry", Hint: "Check the database is up."},
		Stderr: "connecting with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc\npassword=hunter2 rejected\nghp_abcdefghijklmnopqrstuvwxyz0123 is invalid\n",
	}
	text := diagnostics(sv, service.Snapshot{Version: "1.2.3"}, since.Add(90*time.Second))
	for _, want := range []string{
		"mcptray 1.2.3", "db-mcp --token REDACTED --api-key=REDACTED --url", "--ro",
		"Environment (names only): DB_PASSWORD", "State: failed since 2025-03-01T10:00:00Z (1m30s ago)",
		"Failed attempts in a row: 3", "it exited with status 1", "Check the database is up.",
		"Last error output:", "password=REDACTED rejected",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the diagnostics lack %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{"tok-AAAA", "KEY123", ":pw@", "zz", "eyJ", "hunter2", "ghp_abc"} {
		if strings.Contains(text, secret) {
			t.Errorf("the diagnostics hold the secret %q:\n%s", secret, text)
		}
	}
}

// TestWindowCopiesDiagnostics: the button puts the selected server's
// diagnostics on the clipboard.
func TestWindowCopiesDiagnostics(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{Server: "broken"})
	var got string
	h.do(func() {
		if !h.v.detail.copy.Visible() {
			t.Fatal("no Copy diagnostics button")
		}
		test.Tap(h.v.detail.copy)
		got = h.v.app.Clipboard().Content()
	})
	for _, want := range []string{"diagnostics for broken", "Runs: uvx broken-mcp", "uvx is not installed", "sh: uvx: not found", "/home/me/.cursor/mcp.json"} {
		if !strings.Contains(got, want) {
			t.Errorf("the clipboard lacks %q:\n%s", want, got)
		}
	}
}
