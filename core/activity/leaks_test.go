package activity

import (
	"strings"
	"testing"
)

// TestLeaksInProse: keys of the common providers, written in sentences the
// way people paste them, leave no trace in what is kept. Every key here is
// a documented example or made up.
func TestLeaksInProse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, secret string }{
		{"AWS access key id", "my key id is AKIAIOSFODNN7EXAMPLE, use it", "AKIAIOSFODNN7EXAMPLE"},
		{"AWS secret in prose", "and the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY so deploy", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"GitHub token", "push with ghp_R2D2c3poExampleToken0123456789abcdEF now", "ghp_R2D2c3poExampleToken0123456789abcdEF"},
		{"GitHub fine-grained token", "github_pat_11AAAAAAA0example0TOKEN_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS", "github_pat_11AAAAAAA0example0TOKEN_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS"},
		{"Slack bot token", "post as xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx please", "AbCdEfGhIjKlMnOpQrStUvWx"},
		{"Slack webhook", "hook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX here", "XXXXXXXXXXXXXXXXXXXXXXXX"},
		{"Stripe key", "charge with sk_live_51ExampleKey0123456789abcdefABCDEF", "51ExampleKey0123456789abcdefABCDEF"},
		{"OpenAI-style key", "OPENAI_API_KEY sk-proj-Ex4mpleKeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789 thanks", "Ex4mpleKeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
		{"Anthropic-style key", "use sk-ant-api03-Ex4mple_KeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AA for claude", "Ex4mple_KeyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
		{"JWT", "the session is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJleGFtcGxlIn0.Zm9vYmFyYmF6ZXhhbXBsZXNpZ25hdHVyZQ ok", "Zm9vYmFyYmF6ZXhhbXBsZXNpZ25hdHVyZQ"},
		{"bare 32-hex key", "key 0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"},
		{"bare 40-hex key", "use da39a3ee5e6b4b0d3255bfef95601890afd80709 for it", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"bare 64-hex key", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"},
		{"PEM private key", "here:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7EXAMPLE\n-----END PRIVATE KEY-----\nbye", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7EXAMPLE"},
		{"a random token", "the token for the webhook: 7fQ2xLm9Rk4TzW8pNc3VbH6yJd1GsA5e", "7fQ2xLm9Rk4TzW8pNc3VbH6yJd1GsA5e"},
	} {
		got := newMasker(nil).value(c.text)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Masked) {
			t.Errorf("%s: kept %q as %q", c.name, c.text, got)
		}
		// The prose around it stays.
		if first := strings.Fields(c.text)[0]; !strings.HasPrefix(got, first) && !strings.HasPrefix(c.text, c.secret) {
			t.Errorf("%s: the prose went too: %q", c.name, got)
		}
	}
}

// TestOrdinaryArgumentsKept: what tools are usually given is kept as it
// is: sentences, paths, URLs, names, numbers, and UUIDs (ids far more
// often than keys).
func TestOrdinaryArgumentsKept(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"/home/me/projects/mcptray/core/activity/leaks_test.go",
		`{"path": "C:\\Users\\Me\\Documents\\Quarterly Report 2026 Final.docx"}`,
		"https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem",
		"550e8400-e29b-41d4-a716-446655440000",
		`{"id": "123e4567-e89b-12d3-a456-426614174000", "limit": 50}`,
		"Summarise the meeting notes from Tuesday and list the action items.",
		"create_or_update_file_in_repository_with_content",
		"SELECT id, name FROM users WHERE created_at > '2026-01-01' ORDER BY id",
		"getUserProfileByEmailAddress",
		"The quick brown fox jumps over the lazy dog 1234567890 times.",
		"feature/ISSUE-1234-add-login-page",
	} {
		if got := newMasker(nil).value(s); got != s {
			t.Errorf("%q kept as %q", s, got)
		}
	}
}

func BenchmarkMaskArgument(b *testing.B) {
	m := newMasker(nil)
	s := `{"path": "/home/me/projects/notes.md", "content": "Meeting notes: discuss the roadmap, the budget and hiring.", "mode": "append"}`
	m.value(s)
	b.ResetTimer()
	for b.Loop() {
		m.value(s)
	}
}
