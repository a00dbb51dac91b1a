package service

import (
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/sandbox"
)

// The words of mcptray's config and sign-in that front ends speak. They
// are core/config's and core/oauth's, given here so that the window, the
// tray and the command line import the service and neither of those: what
// a front end knows of a server, a permission or a sign-in is what the
// service tells it (core/deps_test.go holds them to it).

// Scope says where a server's config came from, and with it how far
// mcptray trusts it.
type Scope = config.Scope

// The scopes, most trusted first.
const (
	Enterprise = config.Enterprise
	User       = config.User
	Imported   = config.Imported
	Dynamic    = config.Dynamic
	Local      = config.Local
	Project    = config.Project
	Managed    = config.Managed
)

// Scopes are the scopes, most trusted first.
func Scopes() []Scope { return config.Scopes() }

// Origin says which file (and where in it) a server was read from.
type Origin = config.Origin

// Source is one config file mcptray reads, and the app that writes it.
type Source = config.Source

// Transport is how mcptray reaches a server.
type Transport = config.Transport

// The transports.
const (
	Stdio     = config.Stdio
	HTTP      = config.HTTP
	SSE       = config.SSE
	WebSocket = config.WebSocket
	InProcess = config.InProcess
)

// Approval is the person's decision about a project server.
type Approval = config.Approval

// The approvals.
const (
	NotNeeded = config.NotNeeded
	Approved  = config.Approved
	Denied    = config.Denied
	Undecided = config.Undecided
)

// Problem is something wrong in a config file, said in words.
type Problem = config.Problem

// GatewayRules are the person's choices for the gateway: permissions,
// hidden tools, search mode.
type GatewayRules = config.GatewayRules

// Permission says whether apps may call a tool.
type Permission = config.Permission

// The permissions.
const (
	Allow = config.Allow
	Ask   = config.Ask
	Block = config.Block
)

// ActivitySettings are the activity record's settings.
type ActivitySettings = config.ActivitySettings

// Paths are where mcptray keeps its files.
type Paths = config.Paths

// DefaultPaths are this user's Paths on this system.
func DefaultPaths() (Paths, error) { return config.DefaultPaths() }

// NewPaths are the Paths for goos and the environment lookup gives.
func NewPaths(goos string, lookup func(string) (string, bool)) (Paths, error) {
	return config.NewPaths(goos, lookup)
}

// GatewayEntry is the name under which mcptray is in an app's config.
const GatewayEntry = config.GatewayEntry

// SecretRef is how a config entry refers to the secret kept in the
// keychain under name.
func SecretRef(name string) string { return config.SecretRef(name) }

// HeaderSecretName is the name a header's secret is kept under.
func HeaderSecretName(header string) string { return config.HeaderSecretName(header) }

// SignInSettings are a sign-in's settings beyond the server's config
// (SignInOptions.Settings).
type SignInSettings = oauth.Settings

// SignInGrant is how a sign-in gets its token when not through the browser.
type SignInGrant = oauth.Grant

// The grants.
const (
	ClientCredentials = oauth.ClientCredentials
	CrossAppAccess    = oauth.CrossAppAccess
	JWTBearer         = oauth.JWTBearer
)

// Browser opens a sign-in page.
type Browser = oauth.Browser

// SystemBrowser opens pages in the system's browser.
func SystemBrowser() Browser { return oauth.SystemBrowser() }

// SandboxCheck is what one check of the sandbox on this computer found
// (CheckSandbox): for each kind of server, what each door did.
type SandboxCheck = sandbox.Report

// SandboxKindResult and SandboxDoorResult are a check's parts: one kind
// of server, and one door for it.
type (
	SandboxKindResult = sandbox.KindResult
	SandboxDoorResult = sandbox.DoorResult
)

// SandboxKinds are the kinds of server the check tries.
var SandboxKinds = sandbox.Kinds

// RunUserDir is the person's own runtime folder (/run/user/UID) when it
// is there, theirs alone; "" when not: where the control socket and the
// session bus are found without XDG_RUNTIME_DIR.
func RunUserDir() string { return config.RunUserDir() }
