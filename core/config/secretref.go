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

// secretFilePrefix starts a reference to a secret given as a file
// (SecretFileRef).
const secretFilePrefix = "${secret-file:"

// SecretFileRef returns the reference to the secret called name, given to
// a server as a file: ${secret-file:NAME} becomes the path of a file that
// holds the value, which only that server may read (its own folder, mode
// 0600), made when it starts and removed when it stops. For a program
// that takes a secret's file (--token-file PATH) rather than its value on
// its command line, where other programs could read it.
func SecretFileRef(name string) string { return secretFilePrefix + name + "}" }

// SecretRefs returns the names of the secrets s refers to, in order:
// ${secret:NAME} and ${secret-file:NAME} both.
func SecretRefs(s string) []string {
	var names []string
	for _, prefix := range []string{secretPrefix, secretFilePrefix} {
		for rest := s; ; {
			i := strings.Index(rest, prefix)
			if i < 0 {
				break
			}
			rest = rest[i+len(prefix):]
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				break
			}
			if validVarName(rest[:end]) && !slices.Contains(names, rest[:end]) {
				names = append(names, rest[:end])
			}
			rest = rest[end+1:]
		}
	}
	return names
}

// SecretFileRefs returns the names s refers to as ${secret-file:NAME}.
func SecretFileRefs(s string) []string {
	var names []string
	for _, n := range SecretRefs(s) {
		if strings.Contains(s, SecretFileRef(n)) {
			names = append(names, n)
		}
	}
	return names
}

// ReplaceSecretRefs replaces each ${secret:NAME} in s with value(NAME).
func ReplaceSecretRefs(s string, value func(name string) (string, error)) (string, error) {
	return replaceRefs(s, secretPrefix, value)
}

// ReplaceSecretFileRefs replaces each ${secret-file:NAME} in s with
// path(NAME).
func ReplaceSecretFileRefs(s string, path func(name string) (string, error)) (string, error) {
	return replaceRefs(s, secretFilePrefix, path)
}

func replaceRefs(s, secretPrefix string, value func(name string) (string, error)) (string, error) {
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

// ArgSecretNames returns the names of the secrets s's args put on its
// command line as their values (${secret:NAME}), each once: what every
// program that may read its command line can read. A secret given as a
// file (${secret-file:NAME}) puts only a path there.
func (s *Server) ArgSecretNames() []string {
	var names []string
	for _, a := range s.Args {
		for _, n := range SecretRefs(a) {
			if strings.Contains(a, SecretRef(n)) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}
