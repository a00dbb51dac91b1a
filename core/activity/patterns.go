package activity

import "regexp"

// pattern is one kind of value that looks like a secret. Each has a test
// (TestPatterns) with a value it must catch.
type pattern struct {
	name string
	re   *regexp.Regexp
	// group, when not 0, is the part of the match that is masked (the
	// password in a URL, the value after "password="); else the whole.
	group int
}

// patterns are the values masked wherever they appear in a kept argument,
// a key or a reason.
var patterns = []pattern{
	{name: "private key", re: regexp.MustCompile(`-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)`)},
	{name: "JWT", re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	{name: "bearer token", re: regexp.MustCompile(`(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/=-]{8,})`), group: 1},
	{name: "basic credentials", re: regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`), group: 1},
	{name: "AWS access key", re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{name: "GitHub token", re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{name: "GitLab token", re: regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
	{name: "API key (sk-)", re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
	{name: "Slack token", re: regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
	{name: "Google API key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{name: "Stripe key", re: regexp.MustCompile(`\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}`)},
	{name: "npm token", re: regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`)},
	{name: "password in a URL", re: regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:([^/\s@]+)@`), group: 1},
	{name: "secret assignment", re: regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)["']?\s*[=:]\s*["']?([^\s"'&,;]{4,})`), group: 1},
}

// secretKeyName is a key whose value is masked whole, whatever it holds:
// an argument called "password" or "apiKey" is a secret by its name.
var secretKeyName = regexp.MustCompile(`(?i)(?:pass(?:word|wd|phrase)?$|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|^auth$|cookie|session[_-]?id)`)
