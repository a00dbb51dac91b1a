package service

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
)

// TestActivityTrustDecisions: approving and denying a project's server
// and changing a tool's permission are in the activity record; its
// settings follow mcptray's config file; and ActivitySecrets holds a
// server's environment and ${secret:NAME} values and the gateway's token.
func TestActivityTrustDecisions(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{
		"mcpServers": map[string]any{"mine": map[string]any{"command": testServerBin, "args": []string{"-name", "mine"},
			"env": map[string]string{"API_KEY": "env-value-123", "TOKEN": "${secret:TOKEN}"}}},
		"folders":  []string{proj},
		"activity": map[string]any{"keepArguments": true, "days": 7},
	})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := h.start(false, withRecord(l), func(o *Options) { o.Only = []string{} })
	if got := l.Settings(); got != (activity.Settings{KeepArguments: true, Days: 7}) {
		t.Errorf("settings from config.json: %+v", got)
	}

	if _, err := s.Approve(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deny(DecidedBy(ctx, "the window (mcptray, pid 4242)"), "theirs"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPermission(DecidedBy(ctx, "the tray"), "mcp__mine__echo", config.Block); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPermission(ctx, "mcp__mine__echo", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.ChangeSandbox(DecidedBy(ctx, "the command line (mcptray, pid 77)"), SandboxChange{Server: "mine", Allow: true, Host: "api.example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSandbox(DecidedBy(ctx, "the window (mcptray, pid 4242)"), "mine", false); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := l.Query(ctx, activity.Filter{Kind: activity.KindTrust, Oldest: true})
	if err != nil {
		t.Fatal(err)
	}
	type tr struct {
		action activity.TrustAction
		target string
		detail string
		by     string
	}
	var got []tr
	for _, e := range rows {
		d := e.Detail
		if e.Action == activity.Approved || e.Action == activity.Denied {
			d = filepath.Base(d)
		}
		got = append(got, tr{e.Action, e.Target, d, e.App})
	}
	// Each says who decided, when the context said (DecidedBy).
	want := []tr{{activity.Approved, "theirs", ".mcp.json", ""}, {activity.Denied, "theirs", ".mcp.json", "the window (mcptray, pid 4242)"},
		{activity.PermissionSet, "mcp__mine__echo", "block", "the tray"}, {activity.PermissionSet, "mcp__mine__echo", "default", ""},
		{activity.SandboxAllowance, "mine", "reach api.example.com", "the command line (mcptray, pid 77)"},
		{activity.SandboxAllowance, "mine", "run without a sandbox", "the window (mcptray, pid 4242)"}}
	if !slices.Equal(got, want) {
		t.Errorf("trust decisions\n got %+v\nwant %+v", got, want)
	}

	if err := s.SetActivitySettings(ctx, config.ActivitySettings{Days: 30, MaxMB: 5}); err != nil {
		t.Fatal(err)
	}
	if got := l.Settings(); got != (activity.Settings{Days: 30, MaxMB: 5}) {
		t.Errorf("settings after SetActivitySettings: %+v", got)
	}
	if st, err := s.ActivitySettings(ctx); err != nil || st != (config.ActivitySettings{Days: 30, MaxMB: 5}) {
		t.Errorf("ActivitySettings = %+v, %v", st, err)
	}
	if err := s.SetActivitySettings(ctx, config.ActivitySettings{Days: -1}); CodeOf(err) != Invalid {
		t.Errorf("a negative retention: %v", err)
	}

	if err := s.SetSecret(ctx, SecretRequest{Server: "mine", Name: "TOKEN", Value: "keychain-value-456"}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.GatewayToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	secrets := s.ActivitySecrets(ctx)
	for _, v := range []string{"env-value-123", "keychain-value-456", tok} {
		if !slices.Contains(secrets, v) {
			t.Errorf("ActivitySecrets lacks %q", v)
		}
	}
}

// TestActivitySettingsFollowTheFile: settings written into mcptray's config
// file by hand reach the record, from the set the watcher reads.
func TestActivitySettingsFollowTheFile(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"activity": map[string]any{"days": 7}})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	l, err := activity.Open(ctx, activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := h.start(true, withRecord(l), func(o *Options) { o.Only = []string{} })
	if got := l.Settings(); got != (activity.Settings{Days: 7}) {
		t.Fatalf("settings at start: %+v", got)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"activity": map[string]any{"days": 30, "keepArguments": true}})
	waitFor(t, s, "the new settings", func(Snapshot) bool { return l.Settings() == activity.Settings{Days: 30, KeepArguments: true} })
	if st, err := s.ActivitySettings(ctx); err != nil || st != (config.ActivitySettings{Days: 30, KeepArguments: true}) {
		t.Errorf("ActivitySettings = %+v, %v", st, err)
	}
}
