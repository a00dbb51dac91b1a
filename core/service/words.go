package service

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/builtin"
	"github.com/mcptray/mcptray/core/conn"
)

// The words front ends describe servers with. They are the connection
// manager's, given here so that the window, the tray, the command line and
// the control endpoint speak only of the service's types and none of them
// imports core/conn.

// State is where a server's connection stands; its String is the word
// front ends show. The zero value is Pending.
type State = conn.State

// The states of a server. Only the connection manager moves a server from
// one to another, along its one table of transitions.
const (
	// Pending: approved and enabled, waiting for (or in the middle of) a
	// connection attempt.
	Pending = conn.Pending
	// AwaitingApproval: a project server the person has not approved, or
	// whose config changed what it runs since they did.
	AwaitingApproval = conn.AwaitingApproval
	// Connected: initialised and serving.
	Connected = conn.Connected
	// Failed: the last attempt or the live connection failed.
	Failed = conn.Failed
	// NeedsAuth: the server wants the person to sign in (again).
	NeedsAuth = conn.NeedsAuth
	// Disabled: turned off by the person, by policy, or denied at approval.
	Disabled = conn.Disabled
)

// DefaultConnectTimeout bounds one connection attempt, as front ends say
// when a server takes long.
const DefaultConnectTimeout = conn.DefaultConnectTimeout

// LongTextKey marks, in a question's schema, a field whose answer is long
// text (a model's answer written by the person).
const LongTextKey = conn.LongTextKey

// AcceptDefaults answers a server's question with its schema's defaults,
// as mcptray does when nobody is there to answer.
func AcceptDefaults(req mcp.ElicitationRequest) *mcp.ElicitationResult {
	return conn.AcceptDefaults(req)
}

// SchemaDefaults returns the defaults a question's schema gives its fields.
func SchemaDefaults(schema any) map[string]any { return conn.SchemaDefaults(schema) }

// BuiltinName is the name of mcptray's own in-process server, which every
// snapshot lists.
const BuiltinName = builtin.Name
