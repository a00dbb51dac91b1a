package config

import (
	"errors"
	"fmt"
	"strings"
)

// Vars supplies the values of ${…} references in a server's command, args,
// env, cwd, url and headers.
type Vars struct {
	// Lookup reads an environment variable; nil means none is set.
	Lookup func(name string) (string, bool)
	// Folder is the project folder of the file being read (VS Code's
	// ${workspaceFolder}); empty when the file has none.
	Folder string
	// Home is the person's home folder (VS Code's ${userHome}).
	Home string
	// PluginRoot is the plugin's folder, for ${CLAUDE_PLUGIN_ROOT} and
	// ${MCPTRAY_PLUGIN_ROOT}; empty outside plugins.
	PluginRoot string
}

// Expand replaces ${NAME}, ${NAME:-default}, ${env:NAME}, ${workspaceFolder},
// ${userHome} and the plugin root in s.
//
// ${secret:NAME}, a secret kept in the keychain (see SecretRef), and
// ${secret-file:NAME}, the same given as a file (SecretFileRef), are left
// as they are: the approval key covers the reference, not the value, and the
// value is read only when the server starts or is reached.
//
// As in a POSIX shell, the default applies when NAME is unset or empty. A
// variable that is unset and has no default is an error, and so is
// ${input:…}: VS Code prompts for those, and mcptray cannot yet. So is a
// reference inside another (${A:-${B}}), which would otherwise come out
// half expanded. Text that is not a ${…} reference, a lone $ included, is
// left alone.
func (v Vars) Expand(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			// Not %q of s: it may be an env or header value, a secret.
			return "", errors.New("has a ${ without its closing }")
		}
		if strings.Contains(s[i+2:i+end], "${") {
			// The first } would end the inner reference and leave the rest
			// as text: "${A:-${B}/x}" would become "${B/x}".
			return "", errors.New("has a ${…} inside another ${…}; mcptray does not expand nested references")
		}
		val, err := v.resolve(s[i+2 : i+end])
		if err != nil {
			return "", err
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

func (v Vars) resolve(ref string) (string, error) {
	name, def, hasDef := strings.Cut(ref, ":-")
	switch {
	case hasDef:
		// ${NAME:-default}, and VS Code's spelling ${env:NAME:-default}
		name = strings.TrimPrefix(name, "env:")
	case name == "workspaceFolder" || name == "workspaceRoot":
		if v.Folder == "" {
			return "", fmt.Errorf("${%s} is used outside a project folder", name)
		}
		return v.Folder, nil
	case name == "userHome":
		return v.Home, nil
	case name == "CLAUDE_PLUGIN_ROOT" || name == "MCPTRAY_PLUGIN_ROOT":
		if v.PluginRoot != "" {
			return v.PluginRoot, nil
		}
	case strings.HasPrefix(name, "env:"):
		name = strings.TrimPrefix(name, "env:")
	case strings.HasPrefix(name, "secret:"):
		if !validVarName(strings.TrimPrefix(name, "secret:")) {
			return "", fmt.Errorf("%q does not name a secret (write ${secret:NAME}, NAME in letters, digits and _)", "${"+ref+"}")
		}
		return "${" + ref + "}", nil
	case strings.HasPrefix(name, "secret-file:"):
		if !validVarName(strings.TrimPrefix(name, "secret-file:")) {
			return "", fmt.Errorf("%q does not name a secret (write ${secret-file:NAME}, NAME in letters, digits and _)", "${"+ref+"}")
		}
		return "${" + ref + "}", nil
	case strings.HasPrefix(name, "input:"):
		return "", fmt.Errorf("%q asks for input that mcptray cannot prompt for yet; put the value in the config instead", "${"+ref+"}")
	}
	if !validVarName(name) {
		// %q: ref is whatever stood between ${ and }, control characters too.
		return "", fmt.Errorf("%q is not a variable mcptray knows (write ${NAME} or ${NAME:-default})", "${"+ref+"}")
	}
	if val, ok := v.lookup(name); ok && (val != "" || !hasDef) {
		return val, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("environment variable %s is not set (set it, or write ${%s:-default})", name, name)
}

func (v Vars) lookup(name string) (string, bool) {
	if v.Lookup == nil {
		return "", false
	}
	return v.Lookup(name)
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
