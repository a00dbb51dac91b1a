package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Policy is the organisation's allow and deny lists, from the enterprise
// file's "allowedMcpServers" and "deniedMcpServers" (the keys Claude Code's
// managed settings use). They filter every scope but the enterprise one.
// A server that a deny rule matches is blocked even when an allow rule
// matches it too; when there is an allow list, a server that no allow rule
// matches is blocked.
type Policy struct {
	File  string
	Allow []Rule // nil: no allow list, everything not denied is allowed
	Deny  []Rule
	// broken, when set, says why the policy file could not be read. Every
	// server outside the enterprise scope is then held back: a policy that
	// cannot be read must not silently allow what it may forbid.
	broken string
}

// Rule matches servers by one of name, command line or URL.
type Rule struct {
	// ServerName matches the server's name as written in its file.
	ServerName string `json:"serverName,omitempty"`
	// ServerCommand matches a stdio server's command and args exactly.
	ServerCommand []string `json:"serverCommand,omitempty"`
	// ServerURL matches a remote server's URL; * matches any run of
	// characters.
	ServerURL string `json:"serverUrl,omitempty"`
}

func (r Rule) String() string {
	switch {
	case r.ServerName != "":
		return fmt.Sprintf("name %q", r.ServerName)
	case r.ServerCommand != nil:
		return fmt.Sprintf("command %q", strings.Join(r.ServerCommand, " "))
	default:
		return fmt.Sprintf("url %q", r.ServerURL)
	}
}

// Matches reports whether the rule covers s.
func (r Rule) Matches(s *Server) bool {
	switch {
	case r.ServerName != "":
		return r.ServerName == s.ConfigName || r.ServerName == s.Name
	case r.ServerCommand != nil:
		return s.Transport == Stdio && slices.Equal(r.ServerCommand, append([]string{s.Command}, s.Args...))
	case r.ServerURL != "":
		return s.Transport.Remote() && wildcard(r.ServerURL).MatchString(s.URL)
	}
	return false
}

func wildcard(pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// Blocks returns why the policy keeps s from running, or "" when it does not.
func (p *Policy) Blocks(s *Server) string {
	if p == nil || s.Scope == Enterprise {
		return ""
	}
	if p.broken != "" {
		return fmt.Sprintf("held back: your organisation's policy %s cannot be read (%s)", p.File, p.broken)
	}
	for _, r := range p.Deny {
		if r.Matches(s) {
			return fmt.Sprintf("blocked by your organisation's policy (%s denies %s)", p.File, r)
		}
	}
	if p.Allow == nil {
		return ""
	}
	for _, r := range p.Allow {
		if r.Matches(s) {
			return ""
		}
	}
	return fmt.Sprintf("blocked by your organisation's policy (%s allows only listed servers)", p.File)
}

// policy reads the allow and deny lists from an enterprise document.
func (d *document) policy() (*Policy, []Problem) {
	p := &Policy{File: d.src.File}
	var problems []Problem
	top := d.root.Value.(*hujson.Object)
	for _, l := range []struct {
		key string
		dst *[]Rule
	}{{"allowedMcpServers", &p.Allow}, {"deniedMcpServers", &p.Deny}} {
		v := member(top, l.key)
		if v == nil {
			continue
		}
		arr, ok := v.Value.(*hujson.Array)
		if !ok {
			problems = append(problems, *d.problem(v.StartOffset, "", fmt.Sprintf("%q must be a list of rules", l.key)))
			p.broken = fmt.Sprintf("%q is not a list", l.key)
			continue
		}
		*l.dst = []Rule{}
		for _, e := range arr.Elements {
			var r Rule
			err := json.Unmarshal(d.data[e.StartOffset:e.EndOffset], &r)
			n := 0
			for _, set := range []bool{r.ServerName != "", r.ServerCommand != nil, r.ServerURL != ""} {
				if set {
					n++
				}
			}
			if err != nil || n != 1 {
				problems = append(problems, *d.problem(e.StartOffset, "",
					fmt.Sprintf(`each rule in %q must have exactly one of "serverName", "serverCommand" (a list of strings) or "serverUrl"`, l.key)))
				p.broken = fmt.Sprintf("a rule in %q is malformed", l.key)
				continue
			}
			*l.dst = append(*l.dst, r)
		}
	}
	return p, problems
}
