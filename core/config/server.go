package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sandbox"
)

// Transport is how mcptray talks to a server.
type Transport string

// The transports a config can ask for. A config without "type" is stdio when
// it has a command, and streamable HTTP when it has only a url.
const (
	Stdio     Transport = "stdio"
	HTTP      Transport = "http"
	SSE       Transport = "sse"
	WebSocket Transport = "ws"
	InProcess Transport = "in-process"
)

// transportAliases maps every spelling found in the wild to a Transport.
var transportAliases = map[string]Transport{
	"stdio":           Stdio,
	"http":            HTTP,
	"streamable-http": HTTP,
	"streamablehttp":  HTTP,
	"streamable_http": HTTP,
	"sse":             SSE,
	"ws":              WebSocket,
	"websocket":       WebSocket,
}

// otherAppsTypes are the types Claude Code writes for connections that only
// it can make, each with what it is and why mcptray does not run it.
var otherAppsTypes = map[string]string{
	"sse-ide":        "is Claude Code's link to an IDE extension over SSE, which the IDE opens for the Claude Code session inside it; mcptray cannot reach it",
	"ws-ide":         "is Claude Code's link to an IDE extension over WebSocket, which the IDE opens for the Claude Code session inside it; mcptray cannot reach it",
	"sdk":            "is a server that runs inside a program built with the Claude Agent SDK; only that program can reach it",
	"claudeai-proxy": "is a claude.ai connector, reached through claude.ai with your claude.ai sign-in; only Claude apps can use it",
}

// ParseTransport reads a config's "type" field.
func ParseTransport(s string) (Transport, error) {
	if t, ok := transportAliases[strings.ToLower(s)]; ok {
		return t, nil
	}
	if why, ok := otherAppsTypes[strings.ToLower(s)]; ok {
		return "", fmt.Errorf("type %q %s", s, why)
	}
	return "", fmt.Errorf("unknown type %q (use stdio, http, sse or ws)", s)
}

// Remote reports whether the transport reaches a server over the network.
func (t Transport) Remote() bool { return t == HTTP || t == SSE || t == WebSocket }

// OAuth is a server's optional "oauth" block: what the sign-in needs to know
// when the server does not say it itself.
type OAuth struct {
	ClientID              string   `json:"clientId,omitempty"`
	ClientSecret          string   `json:"clientSecret,omitempty"`
	Scopes                []string `json:"scopes,omitempty"`
	AuthServerMetadataURL string   `json:"authServerMetadataUrl,omitempty"`
	XAA                   bool     `json:"xaa,omitempty"`
	CallbackPort          int      `json:"callbackPort,omitempty"`
}

// UnmarshalJSON accepts "scopes" as a list or as one space-separated string,
// the two ways configs in the wild write it.
func (o *OAuth) UnmarshalJSON(b []byte) error {
	type plain OAuth
	var v struct {
		plain
		Scopes json.RawMessage `json:"scopes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = OAuth(v.plain)
	if len(v.Scopes) == 0 || string(v.Scopes) == "null" {
		return nil
	}
	var one string
	if err := json.Unmarshal(v.Scopes, &one); err == nil {
		o.Scopes = strings.Fields(one)
		return nil
	}
	return json.Unmarshal(v.Scopes, &o.Scopes)
}

// Origin says exactly where a server's config was found.
type Origin struct {
	// File is the config file's path; empty for dynamic servers.
	File string `json:"file,omitempty"`
	// App names the app the file belongs to ("Claude Desktop", "mcptray"…).
	App string `json:"app"`
	// Folder is the project folder the server belongs to, if any.
	Folder string `json:"folder,omitempty"`
	// Line and Column locate the server's entry in File.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

func (o Origin) String() string {
	switch {
	case o.File == "":
		return o.App
	case o.Line > 0:
		return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
	default:
		return o.File
	}
}

// Server is one server's config after ${VAR} expansion: everything needed to
// start or reach it.
//
// Env and Headers values may be secrets: they are passed to the server and
// hashed for approval, never printed.
type Server struct {
	// Name is the name the server goes by in mcptray, unique within a Set.
	Name string
	// NameHidden says that the name as written holds characters that would
	// not show (zero-width, bidi controls, line breaks…): Name then shows
	// each as '?' and never takes the name of a server without them. Front
	// ends should say "contains hidden characters" next to it.
	NameHidden bool
	// ConfigName is the name as written in its file.
	ConfigName string
	Scope      Scope
	Origin     Origin
	Transport  Transport

	Command string
	Args    []string
	Env     map[string]string
	// EnvFile is a dotenv file whose variables the server also gets; a
	// name in Env wins over the same name in the file.
	EnvFile string
	// Cwd is the folder a stdio server starts in; for servers from a project
	// folder or plugin it defaults to that folder.
	Cwd string

	URL     string
	Headers map[string]string
	OAuth   *OAuth

	// PlainKeys are the env variables or headers whose value, by its name a
	// key, is written out in the config file itself (not ${…}): a key kept
	// in plain text, which the person may want in the keychain instead.
	PlainKeys []string

	// Disabled servers are listed but never started.
	Disabled bool

	// SandboxAsk is what the entry itself asks for beyond the default
	// sandbox ("mcptray": {"sandbox": …}); it is part of the approval key.
	SandboxAsk sandbox.Settings
	// Sandbox is what the server gets beyond the default sandbox: the
	// person's settings with SandboxAsk.
	Sandbox sandbox.Settings

	// Bundle says it was installed from an MCP Bundle; nil when not.
	Bundle *Bundle
}

// EnvNames returns the names of the server's environment variables, sorted.
func (s *Server) EnvNames() []string { return sortedKeys(s.Env) }

// HeaderNames returns the names of the server's HTTP headers, sorted.
func (s *Server) HeaderNames() []string { return sortedKeys(s.Headers) }

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// clone returns a deep copy, so that a Set handed to a front end can never be
// changed by a later reload.
func (s Server) clone() Server {
	s.Args = slices.Clone(s.Args)
	s.Env = maps.Clone(s.Env)
	s.Headers = maps.Clone(s.Headers)
	s.PlainKeys = slices.Clone(s.PlainKeys)
	s.SandboxAsk, s.Sandbox = s.SandboxAsk.Clone(), s.Sandbox.Clone()
	if s.Bundle != nil {
		b := *s.Bundle
		s.Bundle = &b
	}
	if s.OAuth != nil {
		o := *s.OAuth
		o.Scopes = slices.Clone(o.Scopes)
		s.OAuth = &o
	}
	return s
}
