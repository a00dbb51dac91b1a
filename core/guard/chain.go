package guard

import (
	"encoding/json"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Step is one call of a chain: which tool of which server, and what it
// read or where it sent, as its arguments named it.
type Step struct {
	Server, ServerTool string
	// What is the path or address its arguments named, or "".
	What string
}

// Chain is how a session came to be held: the call that brought in
// private data, the one that brought in untrusted content, in the order
// they came, and the egress call held.
type Chain struct {
	// App is the calling app as people know it, or "".
	App string
	// First and Then are the private and the untrusted step, in the
	// order the session took them; FirstLabel is First's.
	First, Then Step
	FirstLabel  Label
	// Send is the held call; To where it would send, or "".
	Send Step
	To   string
}

// Words says the chain as the question puts it: "Claude Code read
// ~/notes/tax.txt through files, then read https://example.com/issue/42
// through fetch. It now wants to send data through slack (to
// hooks.slack.com)." Every name in it is sanitised.
func (c Chain) Words() string {
	app := sanitize.Line(c.App)
	if app == "" {
		app = "An app"
	}
	thenLabel := Untrusted
	if c.FirstLabel == Untrusted {
		thenLabel = Private
	}
	var b strings.Builder
	b.WriteString(app + " " + c.First.words(c.FirstLabel) + ", then " + c.Then.words(thenLabel) + ".")
	b.WriteString(" It now wants to send data through " + sanitize.Line(c.Send.Server))
	if c.To != "" {
		b.WriteString(" (to " + sanitize.Line(c.To) + ")")
	}
	b.WriteString(".")
	return b.String()
}

// words says what the step read: "read ~/notes/tax.txt through files".
func (s Step) words(l Label) string {
	through := " through " + sanitize.Line(s.Server)
	what := sanitize.Line(s.What)
	switch {
	case what != "":
		return "read " + what + through
	case l == Private:
		return "read your data" + through
	}
	return "read content from outside" + through
}

// maxWhat bounds the path or address a step keeps.
const maxWhat = 200

// whatOf is the first path or address among a call's arguments, with the
// home as ~: the words of its step. Only a few strings are looked at.
func whatOf(args json.RawMessage, home string) string {
	if len(args) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var found string
	var look func(v any, depth int)
	look = func(v any, depth int) {
		if found != "" || depth > 3 {
			return
		}
		switch v := v.(type) {
		case string:
			if w := pathOrURL(v, home); w != "" {
				found = w
			}
		case []any:
			for _, x := range v {
				look(x, depth+1)
			}
		case map[string]any:
			for _, k := range []string{"url", "uri", "path", "file", "paths", "href", "link"} {
				if x, ok := v[k]; ok {
					look(x, depth+1)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				look(v[k], depth+1)
			}
		}
	}
	look(m, 0)
	if len(found) > maxWhat {
		found = found[:maxWhat] + "…"
	}
	return found
}

// pathOrURL is s when it is an absolute path (with the home as ~) or a web
// address, else "".
func pathOrURL(s, home string) string {
	switch {
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			u.User = nil // never a password in a question
			return u.String()
		}
	case strings.HasPrefix(s, "~/"):
		return s
	case filepath.IsAbs(s) && !strings.ContainsAny(s, "\n"):
		if home != "" {
			if rel, err := filepath.Rel(home, s); err == nil && !strings.HasPrefix(rel, "..") {
				if rel == "." {
					return "~"
				}
				return "~/" + filepath.ToSlash(rel)
			}
		}
		return s
	}
	return ""
}

// hostOf is the host of the first web address among args, or "".
func hostOf(args json.RawMessage) string {
	w := whatOf(args, "")
	if u, err := url.Parse(w); err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
		return u.Host
	}
	return ""
}
