// Package mcpserver is the MCP server that mcptray's connection tests, CLI
// tests and benchmarks talk to instead of mocks: a real server built on
// mcp-go, with a handful of tools and misbehaviours that a test can switch on
// (slow or missing handshakes, hanging tools, a crash mid-call, garbage on
// stdout, a flood on stderr, awkward tool names and schemas).
//
// It is a test peer. It is never shipped and nothing outside test code may
// import it; its command, cmd/mcp-testserver, only ever listens on loopback.
package mcpserver

import (
	"io"
	"os"
	"time"
)

// Version is what the server reports as its version in initialize.
const Version = "0.1.0"

// DefaultName is the server name used when Options.Name is empty.
const DefaultName = "mcp-testserver"

// Options selects the server's name, its extra tools and its misbehaviours.
// The zero value is a well-behaved server with the standard tools.
type Options struct {
	// Name is the server name reported in initialize (DefaultName if empty).
	Name string

	// Tools adds that many trivial tools t0…t<n-1>, for listing benchmarks.
	Tools int

	// InitDelay holds back the answer to the handshake (initialize, and
	// server/discover for clients on protocol 2026-07-28) for this long.
	InitDelay time.Duration
	// HangInit never answers the handshake; the request is only released
	// when the client cancels it or the server stops.
	HangInit bool
	// HangPrompts never answers prompts/list; the request is only
	// released when the client cancels it or the server stops.
	HangPrompts bool
	// HangTool names a tool whose calls never answer until cancelled. If no
	// standard tool has that name, a tool of that name is added.
	HangTool string
	// GarbageStdout writes lines that are not JSON-RPC to stdout before the
	// first message and before every message after it (stdio only).
	GarbageStdout bool
	// StderrFlood writes that many bytes of junk to Stderr before serving.
	// The write blocks until a reader drains the pipe, as a chatty real
	// server would.
	StderrFlood int

	// BigDescription adds a tool, big_description, whose description is
	// that many characters long.
	BigDescription int
	// Bidi adds BidiTool, whose name, description and output hide bidi
	// controls and invisible characters.
	Bidi bool
	// CollidingTools adds tools "a.b" and "a_b", whose names collide once
	// normalised to [a-zA-Z0-9_-].
	CollidingTools bool

	// App adds an MCP App (app.go): the tool show_app, whose view is the
	// resource AppURI. AppUnlisted leaves the view out of resources/list.
	App, AppUnlisted bool

	// ToolsFile names a JSON list of FileTool to add, read again by the
	// tool ReloadTool (toolsfile.go).
	ToolsFile string
	// PromptsFile names a JSON list of FilePrompt to add besides the
	// standard prompt, read again by ReloadTool too; the server then
	// declares that its prompts change (listChanged).
	PromptsFile string

	// Fetch adds the tool FetchTool, which GETs a URL through the proxy
	// the environment names (fetch.go).
	Fetch bool
	// Post adds the tool PostTool, which POSTs a text to a URL (fetch.go).
	Post bool
	// Backup adds the tool BackupTool, which POSTs a text to a URL as
	// Post does under a name that says nothing of sending (fetch.go).
	Backup bool
	// Escape adds the tool EscapeTool, which tries the doors out of its
	// sandbox as a hostile server would (escape.go).
	Escape bool

	// Stderr receives StderrFlood and the server's own log lines; nil means
	// os.Stderr.
	Stderr io.Writer
	// Exit is what the crash tool calls with status 3; nil means os.Exit.
	// Tests that run the server in-process replace it.
	Exit func(code int)
}

func (o Options) name() string {
	if o.Name == "" {
		return DefaultName
	}
	return o.Name
}

func (o Options) stderr() io.Writer {
	if o.Stderr == nil {
		return os.Stderr
	}
	return o.Stderr
}

func (o Options) exit(code int) {
	if o.Exit == nil {
		os.Exit(code)
	}
	o.Exit(code)
}
