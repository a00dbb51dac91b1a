package config

import (
	"regexp"
	"slices"
	"strings"
)

// keyName matches the names of variables and headers that usually hold a
// key: GITHUB_TOKEN, BRAVE_API_KEY, Authorization, X-Api-Key…
var keyName = regexp.MustCompile(`(?i)(token|key|secret|passw(or)?d|credential|auth|bearer|(^|[_-])pat($|[_-]))`)

// plainKeys returns, sorted, the names in raw (an entry's env or headers as
// written) whose value is written out in the file rather than referred to
// with ${…}, and whose name says it is a key: what a person would want
// moved into the keychain.
func plainKeys(raw map[string]string) []string {
	var out []string
	for k, v := range raw {
		if strings.TrimSpace(v) != "" && !strings.Contains(v, "${") && keyName.MatchString(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
