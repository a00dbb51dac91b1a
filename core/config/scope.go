package config

import "fmt"

// Scope says where a server's config came from, and with it how far mcptray
// trusts it.
type Scope int

// The seven scopes, most trusted first: when two scopes hold the same server
// (the same Signature), the one listed earlier here wins.
const (
	// Enterprise servers come from the file an administrator manages; the
	// organisation has approved them, and its allow and deny lists filter
	// every other scope.
	Enterprise Scope = iota
	// User servers are in mcptray's own config file, managed by the person.
	User
	// Imported servers come from apps the person already uses (Claude
	// Desktop, Claude Code, Cursor, VS Code), where they were set up by hand.
	Imported
	// Dynamic servers were added at run time through the local API and last
	// as long as mcptray runs.
	Dynamic
	// Local servers come from a .mcp.json in a folder the person added; each
	// needs the person's approval.
	Local
	// Project servers come from settings a team shares in a folder
	// (.vscode/mcp.json, .cursor/mcp.json); each needs approval like Local.
	Project
	// Managed servers are provided by plugins and discovered automatically;
	// the least trusted, they give way to any manual config of the same
	// server.
	Managed
	numScopes
)

var scopeNames = [numScopes]string{
	Enterprise: "enterprise",
	User:       "user",
	Imported:   "imported",
	Dynamic:    "dynamic",
	Local:      "local",
	Project:    "project",
	Managed:    "managed",
}

// String returns the scope's name as the command line and JSON show it.
func (s Scope) String() string {
	if s < 0 || s >= numScopes {
		return fmt.Sprintf("scope(%d)", int(s))
	}
	return scopeNames[s]
}

// MarshalText implements encoding.TextMarshaler.
func (s Scope) MarshalText() ([]byte, error) {
	if s < 0 || s >= numScopes {
		return nil, fmt.Errorf("unknown scope %d", int(s))
	}
	return []byte(scopeNames[s]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scope) UnmarshalText(b []byte) error {
	for i, name := range scopeNames {
		if name == string(b) {
			*s = Scope(i)
			return nil
		}
	}
	return fmt.Errorf("unknown scope %q", b)
}

// NeedsApproval reports whether servers from this scope run only after the
// person approved exactly what they run.
func (s Scope) NeedsApproval() bool { return s == Local || s == Project }

// Scopes lists every scope, most trusted first.
func Scopes() []Scope {
	out := make([]Scope, numScopes)
	for i := range out {
		out[i] = Scope(i)
	}
	return out
}
