package config

import (
	"slices"
	"strings"
)

// secretPrefix starts a reference to a secret kept in the keychain.
const secretPrefix = "${secret:"

// SecretRef returns the reference to the secret called name that a config
// holds in place of its value: ${secret:NAME}. Expand leaves it as it is,
// so the approval key covers the reference and never the value; mcptray
// resolves it from the keychain just before it starts or reaches the
// server.
func SecretRef(name string) string { return secretPrefix + name + "}" }

// SecretRefs returns the names of the secrets s refers to, in order.
func SecretRefs(s string) []string {
	var names []string
	for {
		i := strings.Index(s, secretPrefix)
		if i < 0 {
			return names
		}
		s = s[i+len(secretPrefix):]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return names
		}
		if validVarName(s[:end]) {
			names = append(names, s[:end])
		}
		s = s[end+1:]
	}
}

// ReplaceSecretRefs replaces each ${secret:NAME} in s with value(NAME).
func ReplaceSecretRefs(s string, value func(name string) (string, error)) (string, error) {
	if !strings.Contains(s, secretPrefix) {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, secretPrefix)
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		name := ""
		if end > 0 {
			name = s[i+len(secretPrefix) : i+end]
		}
		if end < 0 || !validVarName(name) {
			// Expand refused these already; keep the text as it is.
			b.WriteString(s[:i+len(secretPrefix)])
			s = s[i+len(secretPrefix):]
			continue
		}
		v, err := value(name)
		if err != nil {
			return "", err
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// SecretNames returns the names of the secrets s's command, args, env,
// url and headers refer to, each once, in that order.
func (s *Server) SecretNames() []string {
	var names []string
	add := func(v string) {
		for _, n := range SecretRefs(v) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	for _, a := range s.Args {
		add(a)
	}
	for _, k := range s.EnvNames() {
		add(s.Env[k])
	}
	add(s.URL)
	for _, k := range s.HeaderNames() {
		add(s.Headers[k])
	}
	return names
}
