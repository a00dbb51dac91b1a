package service

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/transport"
)

// TestExplain: the common failures are recognised and say what fixes them.
func TestExplain(t *testing.T) {
	t.Parallel()
	stdio := func(cmd string) *config.Entry {
		return &config.Entry{Server: config.Server{Name: "s", Transport: config.Stdio, Command: cmd,
			Origin: config.Origin{File: "/home/me/.config/mcptray/config.json"}}}
	}
	remote := &config.Entry{Server: config.Server{Name: "r", Transport: config.HTTP, URL: "https://example.com/mcp"}}
	tests := []struct {
		name        string
		e           *config.Entry
		st          conn.Status
		stderr      string
		wantReason  string
		wantAction  Action
		wantHintHas string
	}{
		{"npx missing", stdio("npx"), conn.Status{State: conn.Failed, Err: `starting it: "npx" was not found in any folder on PATH`}, "",
			"npx is not installed", RetryAction, "Node.js"},
		{"uvx missing", stdio("/usr/local/bin/uvx"), conn.Status{State: conn.Failed, Err: `"uvx" was not found in any folder on PATH`}, "",
			"uvx is not installed", RetryAction, "uv"},
		{"docker missing", stdio("docker"), conn.Status{State: conn.Failed, Err: `"docker" was not found in any folder on PATH`}, "",
			"docker is not installed", RetryAction, "Docker"},
		{"python missing on Windows", stdio(`C:\Python\python.exe`), conn.Status{State: conn.Failed, Err: `"python.exe" was not found in any folder on PATH`}, "",
			"python is not installed", RetryAction, "Python"},
		{"unknown program missing", stdio("frob"), conn.Status{State: conn.Failed, Err: `"frob" was not found in any folder on PATH`}, "",
			"frob is not installed, or not on your PATH", RetryAction, "Install frob"},
		{"variable required", stdio("node"), conn.Status{State: conn.Failed, Err: "the server exited with status 1"},
			"Error: GITHUB_PERSONAL_ACCESS_TOKEN environment variable is required\n",
			"it needs GITHUB_PERSONAL_ACCESS_TOKEN, which is not set", EditConfigAction, "config.json"},
		{"key missing", stdio("node"), conn.Status{State: conn.Failed, Err: "the server exited with status 1"},
			"fatal: missing BRAVE_API_KEY\n", "it needs BRAVE_API_KEY, which is not set", EditConfigAction, "BRAVE_API_KEY"},
		{"plain crash", stdio("node"), conn.Status{State: conn.Failed, Err: "the server exited with status 1"}, "Segmentation fault\n",
			"the server exited with status 1", RetryAction, ""},
		{"sign-in needed", remote, conn.Status{State: conn.NeedsAuth, Err: `failed to send request: Post "http://127.0.0.1:1/mcp": the server needs you to sign in (HTTP 401)`}, "",
			"the server needs you to sign in (HTTP 401)", SignInAction, ""},
		{"sign-in with no words", remote, conn.Status{State: conn.NeedsAuth, Err: "sign-in needed"}, "",
			"needs you to sign in", SignInAction, ""},
		{"sign-in refused", remote, conn.Status{State: conn.Failed, Err: "the server refused access (HTTP 403): sign in with an account that may use it"}, "",
			"the server refused access (HTTP 403): sign in with an account that may use it", SignInAction, ""},
		{"unknown host", remote, conn.Status{State: conn.Failed, Err: `failed to send request: Post "https://example.com/mcp": dial tcp: lookup example.com on 10.0.0.53:53: no such host`}, "",
			"cannot find example.com: the name is unknown, or this computer is offline", RetryAction, "internet connection"},
		{"refused", remote, conn.Status{State: conn.Failed, Err: `dial tcp 127.0.0.1:9: connect: connection refused`}, "",
			"nothing answers at example.com (the connection was refused): is the server running?", RetryAction, ""},
		{"awaiting approval", stdio("node"), conn.Status{State: conn.AwaitingApproval}, "",
			"waits for your approval before it runs", ApproveAction, ""},
		{"secret missing", stdio("node"), conn.Status{State: conn.Failed, Err: "needs GITHUB_TOKEN, a secret that has not been entered"}, "",
			"needs GITHUB_TOKEN", SetSecretAction, "mcptray secret set s GITHUB_TOKEN"},
		{"connected", stdio("node"), conn.Status{State: conn.Connected}, "", "", NoAction, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reason, fix := explain(tt.e, tt.st, tt.stderr)
			if reason != tt.wantReason || fix.Action != tt.wantAction || !strings.Contains(fix.Hint, tt.wantHintHas) {
				t.Errorf("explain = %q, %+v; want %q, %s with a hint containing %q", reason, fix, tt.wantReason, tt.wantAction, tt.wantHintHas)
			}
		})
	}
}

// TestExplainDisabled: who turned a server off decides what turns it on.
func TestExplainDisabled(t *testing.T) {
	t.Parallel()
	off := conn.Status{State: conn.Disabled}
	byPerson := &config.Entry{Server: config.Server{Disabled: true}, TurnedOff: true}
	byFile := &config.Entry{Server: config.Server{Disabled: true, Origin: config.Origin{File: "/x/.mcp.json"}}}
	denied := &config.Entry{Approval: config.Denied}
	if _, f := explain(byPerson, off, ""); f.Action != EnableAction {
		t.Errorf("turned off in mcptray: %+v, want enable", f)
	}
	if _, f := explain(byFile, off, ""); f.Action != EditConfigAction || !strings.Contains(f.Hint, "/x/.mcp.json") {
		t.Errorf("turned off in its file: %+v, want to edit that file", f)
	}
	if r, f := explain(denied, off, ""); r != "you denied it" || f.Action != ApproveAction {
		t.Errorf("denied: %q %+v", r, f)
	}
}

func textOf(content []mcp.Content) string {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestAuthReasonKnowsEveryChallenge: each way a sign-in challenge is told
// reaches the person in its own words, without the request around it.
func TestAuthReasonKnowsEveryChallenge(t *testing.T) {
	for _, ae := range []*transport.AuthError{
		{Status: 401},
		{Status: 401, ErrorCode: "invalid_token"},
		{Status: 401, ErrorCode: "invalid_token", DPoPRefused: true},
		{Status: 403, ErrorCode: "insufficient_scope"},
		{Status: 403},
	} {
		wrapped := `Post "https://mcp.example/mcp": ` + ae.Error()
		if got := authReason(wrapped); got != ae.Error() {
			t.Errorf("authReason(%q) = %q, want %q", wrapped, got, ae.Error())
		}
	}
}
