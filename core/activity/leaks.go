package activity

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/viper"
	gitleaks "github.com/zricethezav/gitleaks/v8/config"
)

// Beyond patterns, a kept value is read with gitleaks' rules (its default
// rule set, some 220 kinds of provider keys and tokens, each with the
// keywords that must be near it and the entropy its secret must have) and
// an entropy check of its own for keys that name no provider: a bare run
// of 32 or more hex digits, or a long run of mixed letters and digits that
// reads as random. A UUID is kept: it names a thing (a record, a request)
// far more often than it is a key, and masking it would leave arguments
// that say nothing.

// leakRule is one of gitleaks' rules, as the masker applies it.
type leakRule struct {
	re       *regexp.Regexp
	group    int
	entropy  float64
	keywords []string
	allow    []leakAllow
}

// leakAllow is one of a rule's allowlists: what it lets be (a
// placeholder, a stop word). Its own, rather than gitleaks' Allowlist,
// whose index of stop words holds some 9 MB for the life of mcptray.
type leakAllow struct {
	regexes   []*regexp.Regexp
	stopWords []string // lower case
}

// leakRules are gitleaks' default rules, read once, when first needed
// (a few milliseconds); nil if they cannot be read.
var leakRules = sync.OnceValue(func() []leakRule {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(gitleaks.DefaultConfig)); err != nil {
		return nil
	}
	var vc gitleaks.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil
	}
	var out []leakRule
	for _, r := range cfg.GetOrderedRules() {
		if r.Regex == nil || r.Path != nil && r.Regex.String() == "" {
			continue // rules about file names only
		}
		kw := make([]string, len(r.Keywords))
		for i, k := range r.Keywords {
			kw[i] = strings.ToLower(k)
		}
		allow := make([]leakAllow, 0, len(r.Allowlists))
		for _, a := range r.Allowlists {
			words := make([]string, len(a.StopWords))
			for i, w := range a.StopWords {
				words[i] = strings.ToLower(w)
			}
			allow = append(allow, leakAllow{regexes: a.Regexes, stopWords: words})
		}
		out = append(out, leakRule{re: r.Regex, group: r.SecretGroup, entropy: r.Entropy, keywords: kw, allow: allow})
	}
	return out
})

// leaks calls mark with where each secret gitleaks' rules find in s is.
// Each rule reads only the stretches of s around its keywords (every rule
// has some, and what it matches holds one): its expressions, which begin
// with up to 50 characters of anything, are slow over a whole long value.
func leaks(s string, mark func(start, end int)) {
	lower := strings.ToLower(s)
	var spans [][2]int
	for _, r := range leakRules() {
		spans = keywordSpans(lower, r.keywords, spans[:0])
		if len(r.keywords) == 0 {
			spans = append(spans, [2]int{0, len(s)})
		}
		for _, sp := range spans {
			for _, m := range r.re.FindAllStringSubmatchIndex(s[sp[0]:sp[1]], -1) {
				start, end := secretOf(m, r.group)
				if start < 0 || end <= start {
					continue
				}
				start, end = start+sp[0], end+sp[0]
				secret := s[start:end]
				if r.entropy > 0 && entropy(secret) < r.entropy || allowed(r.allow, secret) {
					continue
				}
				mark(start, end)
			}
		}
	}
}

// Around a keyword, a rule reads leakBefore bytes before it (the rules'
// name part: up to 50 characters, and a prefix) and leakAfter after (an
// operator, quotes and a secret of up to some 150 characters, or a PEM
// block's head).
const (
	leakBefore = 128
	leakAfter  = 512
)

// keywordSpans appends to spans the stretches of lower around each
// keyword, joined where they meet, in order.
func keywordSpans(lower string, keywords []string, spans [][2]int) [][2]int {
	first := len(spans)
	for _, k := range keywords {
		for at := 0; ; {
			i := strings.Index(lower[at:], k)
			if i < 0 {
				break
			}
			i += at
			spans = append(spans, [2]int{max(0, i-leakBefore), min(len(lower), i+len(k)+leakAfter)})
			at = i + len(k)
		}
	}
	out := spans[first:]
	if len(out) < 2 {
		return spans
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	j := 0
	for _, sp := range out[1:] {
		if sp[0] <= out[j][1] {
			out[j][1] = max(out[j][1], sp[1])
			continue
		}
		j++
		out[j] = sp
	}
	return spans[:first+j+1]
}

// secretOf is the part of a match that is the secret: the rule's group,
// else the first group that matched, else the whole match.
func secretOf(m []int, group int) (int, int) {
	if group > 0 && 2*group+1 < len(m) {
		return m[2*group], m[2*group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// allowed reports whether one of a rule's allowlists lets secret be: a
// placeholder, a stop word.
func allowed(lists []leakAllow, secret string) bool {
	lower := ""
	for _, a := range lists {
		for _, re := range a.regexes {
			if re.MatchString(secret) {
				return true
			}
		}
		if len(a.stopWords) > 0 && lower == "" {
			lower = strings.ToLower(secret)
		}
		for _, w := range a.stopWords {
			if strings.Contains(lower, w) {
				return true
			}
		}
	}
	return false
}

// randomRun finds runs that may be keys: letters, digits and the
// characters of base64 and of tokens.
var randomRun = regexp.MustCompile(`[A-Za-z0-9+/=_-]{24,}|\b[0-9a-fA-F]{32,}\b`)

// uuid is a UUID, which is kept.
var uuid = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// random calls mark with where each run of s is that reads as a key by
// its entropy alone: 32 or more hex digits holding letters and digits
// (a hex key, an API token, a hash), or 24 or more characters mixing
// upper and lower case letters and digits at 4 bits a character or more
// with case that changes at random (a base64 secret such as an AWS secret
// access key). Paths, UUIDs and words joined by _ or - are not.
func random(s string, mark func(start, end int)) {
	for _, loc := range randomRun.FindAllStringIndex(s, -1) {
		run := s[loc[0]:loc[1]]
		if uuid.MatchString(run) || strings.HasPrefix(run, "/") || strings.Contains(run, "//") {
			continue
		}
		var upper, lower, digit bool
		hex := true
		for i := 0; i < len(run); i++ {
			c := run[i]
			switch {
			case 'a' <= c && c <= 'z':
				lower = true
				hex = hex && c <= 'f'
			case 'A' <= c && c <= 'Z':
				upper = true
				hex = hex && c <= 'F'
			case '0' <= c && c <= '9':
				digit = true
			default:
				hex = false
			}
		}
		switch {
		case hex && len(run) >= 32 && digit && (upper || lower):
		case upper && lower && digit && entropy(run) >= 4 && randomCase(run):
		default:
			continue
		}
		mark(loc[0], loc[1])
	}
}

// randomCase reports whether a part of run between separators (- _ / .
// + =) of 8 or more characters changes from lower to upper case twice or
// more: wJalrXUtnFEMI does, ISSUE-1234-add-login-page does not.
func randomCase(run string) bool {
	for _, part := range strings.FieldsFunc(run, func(r rune) bool { return strings.ContainsRune("-_/.+=", r) }) {
		if len(part) < 8 {
			continue
		}
		changes := 0
		for i := 1; i < len(part); i++ {
			if 'a' <= part[i-1] && part[i-1] <= 'z' && 'A' <= part[i] && part[i] <= 'Z' {
				changes++
			}
		}
		if changes >= 2 {
			return true
		}
	}
	return false
}

// entropy is s's Shannon entropy, in bits a character.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// maskSpans writes Masked over each span of s found by find (spans that
// overlap are joined).
func maskSpans(s string, find func(s string, mark func(start, end int))) string {
	var spans [][2]int
	find(s, func(start, end int) { spans = append(spans, [2]int{start, end}) })
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp[1] <= last {
			continue
		}
		if sp[0] < last {
			sp[0] = last
		} else {
			b.WriteString(s[last:sp[0]])
			b.WriteString(Masked)
		}
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
