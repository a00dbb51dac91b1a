package activity

import (
	"sort"
	"strings"
)

// Masked is what a masked value becomes.
const Masked = "[masked]"

// minKnown is the shortest value of a secret mcptray keeps that is masked
// where it appears: shorter ones ("1", "true") would mask half of
// everything, and are no secret.
const minKnown = 6

// masker masks secrets in text: mcptray's own secrets' values, and values
// that look like one (patterns, entropy, and in kept arguments gitleaks'
// rules: leaks.go).
type masker struct {
	known []string // longest first, so that a secret holding another goes whole
	// seen holds what text returned for the texts it was given lately:
	// the same app names and argument keys come on every call, and
	// each look through the patterns is a dozen regular expressions.
	// A masker is the writer's alone (it makes a new one when the
	// secrets change), so seen needs no lock.
	seen map[string]string
}

// maxSeen bounds masker.seen; when it is full it starts afresh.
const maxSeen = 1024

func newMasker(known []string) *masker {
	m := &masker{}
	seen := map[string]bool{}
	for _, v := range known {
		if len(v) >= minKnown && !seen[v] {
			seen[v] = true
			m.known = append(m.known, v)
		}
	}
	sort.Slice(m.known, func(i, j int) bool { return len(m.known[i]) > len(m.known[j]) })
	return m
}

// text returns s with every secret in it masked.
func (m *masker) text(s string) string {
	if len(s) > 256 { // a value rather than a name: seldom the same
		return m.mask(s)
	}
	if out, ok := m.seen[s]; ok {
		return out
	}
	out := m.mask(s)
	if m.seen == nil || len(m.seen) >= maxSeen {
		m.seen = make(map[string]string, 64)
	}
	m.seen[s] = out
	return out
}

// mask is text, without what text saw.
func (m *masker) mask(s string) string {
	for _, v := range m.known {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Masked)
		}
	}
	for _, p := range patterns {
		if p.group == 0 {
			s = p.re.ReplaceAllLiteralString(s, Masked)
			continue
		}
		s = replaceGroup(s, p)
	}
	// Then the entropy check (leaks.go), on what the patterns left:
	// "[masked]" is no key.
	return maskSpans(s, random)
}

// value is text for a kept argument's value, which gitleaks' rules read
// too (leaks.go). Only kept arguments are: they are where an app puts a
// key it was given, and the rules, compiled, hold some 3 MB, which an
// mcptray that keeps only the arguments' shape (as it does unless asked)
// never needs.
func (m *masker) value(s string) string { return maskSpans(m.text(s), leaks) }

// replaceGroup masks the group of each of p's matches in s.
func replaceGroup(s string, p pattern) string {
	idx := p.re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range idx {
		start, end := m[2*p.group], m[2*p.group+1]
		if start < 0 {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(Masked)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}
