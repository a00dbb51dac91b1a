package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/core/sandbox"
)

// Approval says whether a server may run.
type Approval string

const (
	// NotNeeded: the server's scope is trusted as it is.
	NotNeeded Approval = "not-needed"
	// Approved: the person approved exactly what the server runs now.
	Approved Approval = "approved"
	// Denied: the person refused exactly what the server runs now.
	Denied Approval = "denied"
	// Undecided: the server waits for the person's decision, because it
	// is new or because what it runs has changed since they decided. (Its
	// text stays "pending", which scripts read in list --json; in Go, pending
	// is a connection state, conn.Pending, and nothing else.)
	Undecided Approval = "pending"
)

// ApprovalKey is a hash of everything that decides what a server runs:
// transport, command, args, cwd, env names and a hash of their values, env
// file, url, header names, and what the entry asks of its sandbox. A decision recorded under one key says nothing
// about a server whose key differs, so any such edit asks the person again.
//
// Header values are left out on purpose: they carry tokens that rotate
// without changing what runs. Env values are in (through a hash), because
// NODE_OPTIONS or PYTHONPATH change the program as much as its arguments.
func ApprovalKey(s *Server) string {
	values := sha256.New()
	for _, k := range s.EnvNames() {
		fmt.Fprintf(values, "%d:%s=%d:%s\n", len(k), k, len(s.Env[k]), s.Env[k])
	}
	what := struct {
		Transport   Transport `json:"transport"`
		Command     string    `json:"command,omitempty"`
		Args        []string  `json:"args,omitempty"`
		Cwd         string    `json:"cwd,omitempty"`
		EnvNames    []string  `json:"envNames,omitempty"`
		EnvValues   string    `json:"envValues,omitempty"`
		EnvFile     string    `json:"envFile,omitempty"`
		URL         string    `json:"url,omitempty"`
		HeaderNames []string  `json:"headerNames,omitempty"`
		// Sandbox is left out when the entry asks for nothing, so that
		// keys recorded before it existed still match.
		Sandbox *sandbox.Settings `json:"sandbox,omitempty"`
	}{
		Transport:   s.Transport,
		Command:     s.Command,
		Args:        s.Args,
		Cwd:         s.Cwd,
		EnvNames:    s.EnvNames(),
		EnvFile:     s.EnvFile,
		URL:         s.URL,
		HeaderNames: s.HeaderNames(),
	}
	if !s.SandboxAsk.Empty() {
		what.Sandbox = &s.SandboxAsk
	}
	if len(s.Env) > 0 {
		what.EnvValues = hex.EncodeToString(values.Sum(nil))
	}
	b, _ := json.Marshal(what) // plain strings and slices always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
