package cli

import (
	"log/slog"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/builtin"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
)

// logger writes warnings to stderr, or everything with MCPTRAY_DEBUG=1.
func (c *cmdContext) logger() *slog.Logger {
	level := slog.LevelWarn
	if v, _ := c.Lookup("MCPTRAY_DEBUG"); v != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: level}))
}

// newManager returns a connection manager for the commands that connect.
func (c *cmdContext) newManager() *conn.Manager {
	var m *conn.Manager
	m = conn.New(conn.Options{
		Logger: c.logger(),
		Elicit: c.elicit,
		Tokens: tokenSources(c.oauthManager(nil)),
		Builtin: map[string]*server.MCPServer{
			builtin.Name: builtin.New(conn.Version, func() []builtin.ServerState { return builtinStates(m.Snapshot()) }),
		},
	})
	return m
}

func builtinStates(s conn.Snapshot) []builtin.ServerState {
	var out []builtin.ServerState
	for _, i := range s.Servers {
		out = append(out, builtin.ServerState{Name: i.Name, State: i.Status.State.String(), Error: i.Status.Err, Tools: len(i.Tools)})
	}
	return out
}

// target finds the server a command names: a configured server by name, or
// a remote server by its URL (connected to as it is, without adding it).
func (c *cmdContext) target(name string) (*config.Set, string, error) {
	if u, err := url.Parse(name); err == nil && u.Host != "" && strings.Contains(name, "://") {
		t := config.HTTP
		if u.Scheme == "ws" || u.Scheme == "wss" {
			t = config.WebSocket
		}
		s := config.Server{Name: u.Host, ConfigName: u.Host, Scope: config.Dynamic, Transport: t, URL: name,
			Origin: config.Origin{App: "the command line"}}
		return &config.Set{Servers: []config.Entry{{Server: s, Signature: config.Signature(&s), Approval: config.NotNeeded}}}, s.Name, nil
	}
	set := c.loader.Load()
	e, err := c.find(set, name)
	if err != nil {
		if name == builtin.Name { // the manager adds it to every set
			return &config.Set{}, builtin.Name, nil
		}
		return nil, "", err
	}
	return &config.Set{Servers: []config.Entry{*e}}, e.Name, nil
}
