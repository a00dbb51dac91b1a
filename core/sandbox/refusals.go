package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Refusal is a file the sandbox refused a server, as its error output
// tells it.
type Refusal struct {
	// Path is the file or folder refused.
	Path string `json:"path"`
	// Write says the server was writing (making, renaming, removing); a
	// refused open may have been either, and counts as a read.
	Write bool `json:"write,omitempty"`
	// Line is the line it printed (at most 300 bytes).
	Line string `json:"line"`
	// Grant is what allowing it grants, in the one spelling a grant is
	// kept in: the file, or for a write the folder (Vet).
	Grant string `json:"grant,omitempty"`
	// Checked says mcptray found the server's claim true: the path is
	// there, and its sandbox does not give it (Vet).
	Checked bool `json:"checked,omitempty"`
	// Kept says why it is not offered with one click (a place that holds
	// secrets, runs programs outside any sandbox, or is mcptray's or
	// another server's); "" when it may be (Vet).
	Kept string `json:"kept,omitempty"`
}

// Allow is the flag of mcptray sandbox allow that lets the server do what
// was refused: its folder to write in, or the file (or folder) to read.
func (r Refusal) Allow(home string) string {
	if r.Write {
		return "--write " + quoteArg(r.Setting(home))
	}
	return "--read " + quoteArg(r.Setting(home))
}

// Setting is the folder (Write) or file to allow, as a setting keeps it
// (with ~ for the home): what Allow's flag names.
func (r Refusal) Setting(home string) string {
	if r.Grant != "" {
		return Tilde(home, r.Grant)
	}
	if r.Write {
		return Tilde(home, r.writeFolder(home))
	}
	return Tilde(home, r.Path)
}

// writeFolder is the folder to let it write in: the refused file's,
// unless that is the home or above it (never given whole), and then the
// refused path itself, which mcptray makes as a folder when it is allowed.
func (r Refusal) writeFolder(home string) string {
	if d := filepath.Dir(r.Path); d != home && !within(d, home) {
		return d
	}
	return r.Path
}

// Words says it as a button would: "Let it read ~/Documents/plan.txt".
func (r Refusal) Words(home string) string {
	if r.Write {
		return "Let it change " + r.Setting(home)
	}
	return "Let it read " + r.Setting(home)
}

var (
	// refusedLine finds the errors of every runtime for a refused file:
	// node's "EACCES: permission denied, open '/x'", python's
	// "PermissionError: [Errno 13] Permission denied: '/x'", Go's
	// "open /x: permission denied", a shell's "cannot create /x:
	// Permission denied", and EPERM's "operation not permitted".
	refusedLine = regexp.MustCompile(`(?i)permission denied|operation not permitted|\beacces\b|\beperm\b`)
	// pathIn finds an absolute path: quoted, or up to a space or colon.
	pathIn     = regexp.MustCompile(`'(/[^']*)'|"(/[^"]*)"|(?:^|[\s(])(/[^\s:'",)]+)`)
	writeVerbs = regexp.MustCompile(`(?i)\b(mkdir|rename|unlink|rmdir|symlink|link|copyfile|cannot create|cannot touch|cannot remove|makedirs|write)\b`)
)

// maxRefusals is how many refusals Refusals returns, the newest.
const maxRefusals = 10

// Refusals finds the refused files in a server's error output, newest
// last, each path once.
func Refusals(stderr string) []Refusal {
	var out []Refusal
	for _, line := range strings.Split(stderr, "\n") {
		if !refusedLine.MatchString(line) {
			continue
		}
		m := pathIn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		p := m[1] + m[2] + m[3]
		if p == "/" || strings.HasPrefix(p, "/proc/") || hidden(p) {
			continue // a path with hidden characters cannot be shown as it is
		}
		p = filepath.Clean(p)
		if len(line) > 300 {
			line = line[:300]
		}
		out = slices.DeleteFunc(out, func(r Refusal) bool { return r.Path == p })
		out = append(out, Refusal{Path: p, Write: writeVerbs.MatchString(line), Line: strings.TrimSpace(line)})
	}
	if len(out) > maxRefusals {
		out = out[len(out)-maxRefusals:]
	}
	return out
}
