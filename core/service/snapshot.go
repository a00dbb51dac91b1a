package service

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/tools"
)

// Snapshot is everything a front end shows, at one moment. It is a plain
// value that travels as JSON over the control endpoint: its field names are
// a promise to the window and to scripts (add fields, never rename one).
type Snapshot struct {
	// Servers are every server mcptray knows of, running ones first in
	// the order of the config, then those that give way to another or
	// are blocked.
	Servers []Server `json:"servers"`
	// Problems are config files and entries that could not be read.
	Problems []config.Problem `json:"problems"`
	// Folders are the project folders whose configs are read.
	Folders []string `json:"folders"`
	// Keychain says whether sign-ins can be kept.
	Keychain Keychain `json:"keychain"`
	// Paused is true after PauseAll: no server runs until ResumeAll.
	Paused bool `json:"paused"`
	// Version is the running mcptray's version.
	Version string `json:"version"`
	// Gateway are the person's permissions and hidden tools for the
	// gateway.
	Gateway config.GatewayRules `json:"gateway"`
	// Updates counts the pinned packages whose newer version the last
	// check found and the person has not reviewed and run (packages.go).
	Updates int `json:"updates,omitempty"`
	// UpdatesChecked is when the registries were last asked for any
	// pinned package: a view of the updates reads them again when it
	// changes.
	UpdatesChecked time.Time `json:"updatesChecked,omitzero"`
}

// Server is one server as a person sees it.
type Server struct {
	Name string `json:"name"`
	// NameHidden says the name as written holds hidden characters (each
	// shown as ? in Name), so it cannot pass for another server's.
	NameHidden bool `json:"nameHidden,omitempty"`
	// ConfigName is the name as written in its file.
	ConfigName string           `json:"configName"`
	Scope      config.Scope     `json:"scope"`
	Origin     config.Origin    `json:"origin"`
	Transport  config.Transport `json:"transport"`
	Signature  string           `json:"signature"`

	// What it runs (stdio) or where it connects (remote). Environment and
	// header values are never here: only their names.
	Command     string   `json:"command,omitempty"`
	Args        []string `json:"args,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	EnvNames    []string `json:"envNames,omitempty"`
	EnvFile     string   `json:"envFile,omitempty"`
	URL         string   `json:"url,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"`
	// SecretNames are the secrets kept in the keychain that its config
	// refers to as ${secret:NAME} (see Service.Secrets for which are set).
	SecretNames []string `json:"secretNames,omitempty"`
	// PlainKeys are env variables or headers whose value, by its name a
	// key, is written in plain text in the config file (the values are
	// never here).
	PlainKeys []string `json:"plainKeys,omitempty"`

	// Bundle says it was installed from an MCP Bundle: which, and from
	// where; nil when it was not.
	Bundle *config.Bundle `json:"bundle,omitempty"`

	Approval config.Approval `json:"approval"`
	// Disabled says the person or its config turned it off.
	Disabled bool `json:"disabled,omitempty"`
	// Runnable says mcptray may start it now (approved, enabled, not
	// suppressed).
	Runnable bool `json:"runnable"`
	// Suppressed says why it does not run at all: a more trusted scope has
	// the same server (SuppressedBy), or the organisation blocks it.
	Suppressed   string `json:"suppressed,omitempty"`
	SuppressedBy string `json:"suppressedBy,omitempty"`

	// State is its connection's state; Since is when it began.
	State conn.State `json:"state"`
	Since time.Time  `json:"since"`
	// Reason says in plain words why it is in State ("" when connected).
	Reason string `json:"reason,omitempty"`
	// Fix is what a person can do about it; the zero Fix means nothing.
	Fix Fix `json:"fix"`
	// Tools are its tools while connected, with their qualified names and
	// annotations.
	Tools []tools.Tool `json:"tools,omitempty"`
	// PromptsChanged counts its notices, while connected, that its
	// prompts changed: the gateway lists them again when it grows.
	PromptsChanged uint64 `json:"promptsChanged,omitempty"`
	// Review says which of its tools and prompts changed since the person
	// saw them and are held from apps, and which read as orders to the AI,
	// as the holding policy made them (pins.go).
	Review *Review `json:"review,omitempty"`
	// Stderr is the tail of a local server's error output.
	Stderr string `json:"stderr,omitempty"`
	// Failures counts failed attempts in a row.
	Failures int `json:"failures,omitempty"`
	// Sandbox says what a local server may do; nil for a remote one.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
}

// BuiltIn reports whether s is mcptray's own built-in server, which is
// always there: lists and summaries leave it out.
func (s Server) BuiltIn() bool { return s.Transport == config.InProcess }

// Action names something a person can ask mcptray to do for one server.
type Action string

// The actions a Fix can point at.
const (
	NoAction      Action = ""
	ApproveAction Action = "approve"
	SignInAction  Action = "sign-in"
	RetryAction   Action = "retry"
	EnableAction  Action = "enable"
	// EditConfigAction means the fix is in a config file (Server.Origin):
	// a variable to set, a path to correct. mcptray retries by itself once
	// the file changes.
	EditConfigAction Action = "edit-config"
)

// Fix is the action that fixes a server's state, with its label and, when
// something must be done outside mcptray first (install Node.js), what.
type Fix struct {
	Action Action `json:"action,omitempty"`
	// Label is the button's text: "Sign in", "Retry", "Approve…".
	Label string `json:"label,omitempty"`
	// Hint says what to do first, in plain words, or "".
	Hint string `json:"hint,omitempty"`
	// Secret names the secret to enter, for SetSecretAction.
	Secret string `json:"secret,omitempty"`
}

// Keychain is whether mcptray can keep sign-ins, and if not, what to do.
type Keychain struct {
	Available bool   `json:"available"`
	Problem   string `json:"problem,omitempty"`
	Fix       string `json:"fix,omitempty"`
}

// Find returns the server called name: first by its name in mcptray, then
// by its name as written in its file when only one server has that name.
func (s Snapshot) Find(name string) (Server, bool) {
	for _, sv := range s.Servers {
		if sv.Name == name {
			return sv, true
		}
	}
	var found *Server
	for i, sv := range s.Servers {
		if sv.ConfigName == name && sv.Suppressed == "" {
			if found != nil {
				return Server{}, false
			}
			found = &s.Servers[i]
		}
	}
	if found == nil {
		return Server{}, false
	}
	return *found, true
}

// Counts is how many configured servers that are not suppressed are in
// each state, for a summary; mcptray's built-in server is not counted.
func (s Snapshot) Counts() map[conn.State]int {
	n := map[conn.State]int{}
	for _, sv := range s.Servers {
		if sv.Suppressed == "" && !sv.BuiltIn() {
			n[sv.State]++
		}
	}
	return n
}

// Summary returns the one line that sums s up, the same in the tray and the
// window, such as "5 connected · 1 needs sign-in": "Paused" when paused,
// "No servers yet" when there is no server to run, and otherwise how many
// servers are in each state (as Counts counts them), leaving out the states
// no server is in.
func (s Snapshot) Summary() string {
	if s.Paused {
		return "Paused"
	}
	n := s.Counts()
	var parts []string
	for _, p := range []struct {
		state            conn.State
		singular, plural string
	}{
		{conn.Connected, "connected", "connected"},
		{conn.NeedsAuth, "needs sign-in", "need sign-in"},
		{conn.AwaitingApproval, "waiting for approval", "waiting for approval"},
		{conn.Failed, "failed", "failed"},
		{conn.Pending, "starting", "starting"},
		{conn.Disabled, "off", "off"},
	} {
		switch c := n[p.state]; c {
		case 0:
		case 1:
			parts = append(parts, "1 "+p.singular)
		default:
			parts = append(parts, fmt.Sprintf("%d %s", c, p.plural))
		}
	}
	if len(parts) == 0 {
		return "No servers yet"
	}
	return strings.Join(parts, " · ")
}
