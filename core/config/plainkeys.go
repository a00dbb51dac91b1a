package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
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

// EntryAt returns the server entry that starts at line and column (as an
// Origin gives them) in file, as standard JSON: comments and trailing
// commas dropped, ${…} references as written.
func EntryAt(file string, line, column int) (json.RawMessage, error) {
	orig, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	if len(orig) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", file, MaxFileSize>>20)
	}
	off, ok := offsetOf(orig, line, column)
	if !ok {
		return nil, fmt.Errorf("%s has no line %d, column %d; it changed since it was read", file, line, column)
	}
	// Standardize keeps every byte's offset: comments become spaces.
	data, err := hujson.Standardize(slices.Clone(orig))
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v)", file, err)
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data[off:])).Decode(&raw); err != nil || len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s has no server entry at line %d, column %d; it changed since it was read", file, line, column)
	}
	return raw, nil
}

// offsetOf turns a 1-based line and character column back into a byte
// offset in b.
func offsetOf(b []byte, line, column int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < column; c++ {
		if off >= len(b) || b[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(b[off:])
		off += size
	}
	return off, off < len(b)
}

// MovedKey is one key taken out of an entry by MovePlainKeys.
type MovedKey struct {
	// Key is the variable's or header's name.
	Key string
	// Secret is the name the value is kept under: the entry now holds
	// ${secret:Secret} where the value was.
	Secret string
	// Value is the value, to keep in the keychain.
	Value string
}

// MovePlainKeys returns entry (one server's entry as written) with each
// value its file holds in plain text, in "env" or "headers", whose name says
// it is a key (the ones Server.PlainKeys lists), replaced by a
// ${secret:NAME} reference, and what it took out. A header's
// "Bearer " stays in the entry, its token goes to the keychain. Other keys
// of the entry stay as they are.
func MovePlainKeys(entry json.RawMessage) (json.RawMessage, []MovedKey, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(entry, &obj); err != nil {
		return nil, nil, fmt.Errorf("the entry is not a JSON object: %w", err)
	}
	taken := map[string]bool{}
	for _, n := range SecretRefs(string(entry)) {
		taken[n] = true
	}
	var moved []MovedKey
	for _, field := range []string{"env", "headers"} {
		var m map[string]string
		if raw, ok := obj[field]; !ok || json.Unmarshal(raw, &m) != nil {
			continue
		}
		keys := plainKeys(m)
		for _, k := range keys {
			name := secretName(k, field == "headers", taken)
			value, kept := m[k], SecretRef(name)
			if field == "headers" {
				if scheme, token, ok := strings.Cut(value, " "); ok && strings.EqualFold(scheme, "bearer") && strings.TrimSpace(token) != "" {
					value, kept = strings.TrimSpace(token), scheme+" "+SecretRef(name)
				}
			}
			m[k] = kept
			moved = append(moved, MovedKey{Key: k, Secret: name, Value: value})
		}
		if len(keys) > 0 {
			obj[field], _ = json.Marshal(m) // strings only
		}
	}
	if len(moved) == 0 {
		return entry, nil, nil
	}
	out, err := json.Marshal(obj)
	return out, moved, err
}

// secretName turns a variable's or header's name into a secret's name
// (letters, digits and _; a header's with a dash in capitals, as install
// names them: X-Api-Key becomes X_API_KEY) that taken does not hold yet,
// and marks it taken.
func secretName(key string, upper bool, taken map[string]bool) string {
	name := strings.Map(func(r rune) rune {
		if r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, key)
	if !validVarName(name) {
		name = "_" + name
	}
	if upper && strings.ContainsAny(key, "-. ") {
		name = strings.ToUpper(name)
	}
	out := name
	for i := 2; taken[out]; i++ {
		out = fmt.Sprintf("%s_%d", name, i)
	}
	taken[out] = true
	return out
}

// ScrubBackup replaces path's backup (path+".bak", which WriteFileAtomic
// keeps) with path itself when the backup holds any of values: after a key
// has been moved out of path into the keychain, the backup must not keep it
// in plain text.
func ScrubBackup(path string, values []string) error {
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path + ".bak")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s.bak: %w", path, err)
	}
	holds := false
	for _, v := range values {
		quoted, _ := json.Marshal(v)
		if bytes.Contains(old, []byte(v)) || bytes.Contains(old, quoted[1:len(quoted)-1]) {
			holds = true
		}
	}
	if !holds {
		return nil
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err := writeAndRename(path+".bak", cur, 0o600); err != nil {
		return fmt.Errorf("%s.bak cannot be written: %w", path, osReason(err))
	}
	return nil
}

// HeaderSecretName is the name a header's secret is kept under: the
// header's name with _ for what a name cannot hold, in capitals when it
// had a dash (X-Api-Key becomes X_API_KEY, Authorization stays).
func HeaderSecretName(header string) string { return secretName(header, true, map[string]bool{}) }
