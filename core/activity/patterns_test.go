package activity

import (
	"strings"
	"testing"
)

// TestPatterns: each pattern catches a value of its kind, and the secret
// part leaves no trace in what is kept.
func TestPatterns(t *testing.T) {
	cases := []struct {
		pattern, text, secret string
	}{
		{"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7x\n-----END RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA7x"},
		{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA"},
		{"JWT", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
		{"bearer token", "Authorization: Bearer abcDEF123456.xyz", "abcDEF123456.xyz"},
		{"basic credentials", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"},
		{"AWS access key", "aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"},
		{"GitHub token", "use ghp_0123456789abcdefghijABCDEFGHIJ012345 please", "ghp_0123456789abcdefghijABCDEFGHIJ012345"},
		{"GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"},
		{"GitLab token", "glpat-abcdefghij0123456789", "glpat-abcdefghij0123456789"},
		{"API key (sk-)", "OPENAI sk-proj-abcdefghijklmnop0123456789", "sk-proj-abcdefghijklmnop0123456789"},
		{"API key (sk-)", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz"},
		{"Slack token", "xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"},
		{"Google API key", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"},
		{"Stripe key", "sk_live_0123456789abcdefABCD", "sk_live_0123456789abcdefABCD"},
		{"npm token", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789"},
		{"password in a URL", "postgres://admin:hunter2pass@db.example:5432/x", "hunter2pass"},
		{"secret assignment", "login with password=correcthorse and go", "correcthorse"},
		{"secret assignment", `{"api_key": "k3y-v4lue-123"}`, "k3y-v4lue-123"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.pattern] = true
		var p *pattern
		for i := range patterns {
			if patterns[i].name == c.pattern {
				p = &patterns[i]
			}
		}
		if p == nil {
			t.Fatalf("no pattern %q", c.pattern)
		}
		if !p.re.MatchString(c.text) {
			t.Errorf("%s does not match %q", c.pattern, c.text)
		}
		got := newMasker(nil).text(c.text)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Masked) {
			t.Errorf("%s: masked %q as %q", c.pattern, c.text, got)
		}
	}
	for _, p := range patterns {
		if !seen[p.name] {
			t.Errorf("pattern %q has no test", p.name)
		}
	}
	// Ordinary words stay.
	for _, s := range []string{"read the file /home/me/notes.md", "token count is 42", "skip-this-step", "basic usage"} {
		if got := newMasker(nil).text(s); got != s {
			t.Errorf("%q was masked as %q", s, got)
		}
	}
}

func TestSecretKeyNames(t *testing.T) {
	for _, k := range []string{"password", "apiKey", "api_key", "token", "accessToken", "client_secret", "Authorization", "auth", "privateKey", "passphrase"} {
		if !secretKeyName.MatchString(k) {
			t.Errorf("%s is not taken for a secret's name", k)
		}
	}
	for _, k := range []string{"path", "query", "author", "passes"} {
		if secretKeyName.MatchString(k) {
			t.Errorf("%s is taken for a secret's name", k)
		}
	}
}

func TestShapeAndKept(t *testing.T) {
	m := newMasker([]string{"planted-secret-value"})
	raw := []byte(`{"path":"/tmp/a b","n":3,"deep":{"ok":true,"list":[1,2]},"password":"pw","note":"x planted-secret-value y"}`)
	if got, want := shapeOf(raw, m), `{"deep":{"list":["array(2)","number"],"ok":"boolean"},"n":"number","note":"string(24)","password":"string(2)","path":"string(8)"}`; got != want {
		t.Errorf("shape\n got %s\nwant %s", got, want)
	}
	if got, want := keptOf(raw, m), `{"deep":{"list":[1,2],"ok":true},"n":3,"note":"x [masked] y","password":"[masked]","path":"/tmp/a b"}`; got != want {
		t.Errorf("kept\n got %s\nwant %s", got, want)
	}
	if got := shapeOf([]byte(`not json planted-secret-value`), m); strings.Contains(got, "planted") {
		t.Errorf("shape of text: %s", got)
	}
}
