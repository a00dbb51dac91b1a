package conn

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// The default timeouts. Each guards against a different failure.
const (
	// DefaultConnectTimeout bounds starting a server and its initialize
	// handshake: an unreachable or slow-starting server fails after it.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultRequestTimeout bounds each request other than tools/call,
	// created anew for every request.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultToolCallTimeout bounds a tools/call: about 27.8 hours, since
	// legitimate tools run long; the caller's context usually ends sooner.
	// A caller whose context ends by then saves the Manager a context and
	// a timer of its own on each call (the gateway's do).
	DefaultToolCallTimeout = 100_000_000 * time.Millisecond
)

// ProtocolVersion is the MCP revision mcptray asks for over stdio,
// WebSocket, SSE and in-process. It is pinned on purpose: with no pin
// mcp-go first probes server/discover (2026-07-28) and waits 5 s for every
// server that predates it and ignores the unknown method, which over stdio
// is nearly all of them.
const ProtocolVersion = "2025-11-25"

// AppsExtension is the MCP Apps extension (SEP-1865), which mcptray
// declares to servers: their tools may name views of type AppsMIMEType,
// which the gateway passes on to apps.
const AppsExtension = "io.modelcontextprotocol/ui"

// AppsMIMEType is the type of an MCP App's view.
const AppsMIMEType = "text/html;profile=mcp-app"

// ModernProtocolVersion is the revision mcptray offers first over
// streamable HTTP, where the probe costs one round trip: a server that
// predates it answers server/discover at once with an error (HTTP always
// answers), and mcptray then falls back to ProtocolVersion's handshake.
const ModernProtocolVersion = "2026-07-28"

// ElicitFunc answers a server's request for information from the person.
// Front ends provide it: a dialog, a terminal prompt, or the schema's
// defaults when nobody can be asked.
type ElicitFunc func(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

// Options configure a Manager. Zero values take the defaults.
type Options struct {
	Logger *slog.Logger

	ConnectTimeout  time.Duration
	RequestTimeout  time.Duration
	ToolCallTimeout time.Duration

	// MaxLocal and MaxRemote are the sliding windows of servers connecting
	// at once: 3 stdio servers (more child processes at once exhaust file
	// descriptors) and 20 remote ones.
	MaxLocal, MaxRemote int

	// MinBackoff and MaxBackoff bound the wait before restarting a server
	// that failed; it doubles after each failure in a row.
	MinBackoff, MaxBackoff time.Duration

	// PingInterval is how often a remote server is pinged while idle, so
	// that a network loss or a sleep and wake is noticed and the
	// connection made anew before a person needs it.
	PingInterval time.Duration

	// StdioGrace is how long a stopping child has between SIGTERM and
	// SIGKILL.
	StdioGrace time.Duration
	// BaseEnv is the environment stdio servers start from; nil means the
	// person's login-shell environment.
	BaseEnv []string

	// Elicit answers elicitation requests; nil answers with the schema's
	// defaults.
	Elicit ElicitFunc
	// Tokens returns the sign-in token source for a remote server, or nil
	// when it has none.
	Tokens func(s *config.Server) transport.TokenSource
	// Secrets returns the value of a secret a server's config refers to
	// as ${secret:NAME}, read just before it starts or is reached; nil
	// means no secret can be read (such a server fails, needing it).
	Secrets SecretFunc
	// HistoryFile keeps each server's last connect time, so that the next
	// start lets the slowest in first; "" keeps none (the queue is then in
	// config order).
	HistoryFile string

	// Launcher is mcptray's own program, run in each stdio server's place
	// to put it in its sandbox (mcptray sandbox-exec, core/sandbox). ""
	// runs servers without a sandbox: main gives the service its own
	// program; tests that do not test the sandbox leave it out.
	Launcher string
	// ServersDir holds each server's private data folder (config.Paths'
	// ServersDir); "" runs servers without a sandbox.
	ServersDir string
	// Home is the person's home for the sandbox's lists; "" means
	// os.UserHomeDir.
	Home string
	// Egress returns the port of mcptray's egress proxy on 127.0.0.1 for a
	// server, and the variables that send its traffic there
	// (HTTPS_PROXY…); nil, or a port of 0, means there is no proxy, and the
	// server's TCP connections stay unrestricted.
	Egress func(server string) (port int, env map[string]string)
	// EgressServe serves the egress proxy on a listener inside a
	// sandboxed server's own network (core/sandbox's Start), until the
	// listener closes when the server stops; nil when there is no proxy.
	EgressServe func(net.Listener)
	// Others returns the folders other servers may write, for the server
	// called name (OthersWrite): its sandbox follows no link there. nil
	// means the servers of the config the Manager applied.
	Others func(name string) []string
	// ReadOnlyProject gives a project server its project folder (and any
	// folder around it) to read only, not to change: a look at an
	// unapproved server's tools.
	ReadOnlyProject bool

	// Builtin are the in-process servers, by name.
	Builtin map[string]*server.MCPServer

	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	setDefault(&o.ConnectTimeout, DefaultConnectTimeout)
	setDefault(&o.RequestTimeout, DefaultRequestTimeout)
	setDefault(&o.ToolCallTimeout, DefaultToolCallTimeout)
	setDefault(&o.MinBackoff, time.Second)
	setDefault(&o.MaxBackoff, 5*time.Minute)
	setDefault(&o.StdioGrace, 5*time.Second)
	setDefault(&o.PingInterval, time.Minute)
	setDefault(&o.MaxLocal, 3)
	setDefault(&o.MaxRemote, 20)
	if o.Now == nil {
		o.Now = time.Now
	}
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
