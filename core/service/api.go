package service

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/tools"
)

// API is the running mcptray's API: everything a front end (the window,
// the tray, the command line) may ask of it. It is declared here once.
// The service implements it in this process, and core/control's Client
// implements it over the control socket (asserted at compile time in
// both), so a front end holds an API and does not care which.
//
// What only a running mcptray's control endpoint adds for the window (its
// focus requests, the questions waiting for the person, the gateway's
// status) is not the service's, and stays with core/control.
type API interface {
	// What there is.

	// Snapshot returns everything mcptray shows, now.
	Snapshot(ctx context.Context) (Snapshot, error)
	// Subscribe sends a notice whenever the Snapshot may have changed,
	// the first at once; it closes when ctx ends or mcptray goes away.
	Subscribe(ctx context.Context) (<-chan struct{}, error)
	// Settle waits until no server is still connecting (or ctx ends) and
	// returns a Snapshot.
	Settle(ctx context.Context) (Snapshot, error)

	// Servers: trust, on and off.

	// Approve lets a project server run exactly what it runs now; Deny
	// keeps it from running that.
	Approve(ctx context.Context, name string) (Server, error)
	Deny(ctx context.Context, name string) (Server, error)
	// Enable and Disable turn a server on and off; Retry connects it again
	// at once.
	Enable(ctx context.Context, name string) error
	Disable(ctx context.Context, name string) error
	Retry(ctx context.Context, name string) error
	// PauseAll stops every server until ResumeAll.
	PauseAll(ctx context.Context) error
	ResumeAll(ctx context.Context) error

	// Servers and folders: adding and removing.

	// Add writes a new server into mcptray's own config (its name and URL
	// checked here, whoever asks); Remove takes one out.
	Add(ctx context.Context, req AddRequest) (AddResult, error)
	Remove(ctx context.Context, name string) (RemoveResult, error)
	// InstallBundle installs a server from an MCP Bundle file, or with
	// Preview says what that would do (bundles.go).
	InstallBundle(ctx context.Context, req BundleRequest) (BundleResult, error)
	// AddFolder and RemoveFolder change the project folders mcptray
	// watches; AddDemo makes the demo project folder and adds it.
	AddFolder(ctx context.Context, dir string) (FolderResult, error)
	RemoveFolder(ctx context.Context, dir string) error
	AddDemo(ctx context.Context) (FolderResult, error)

	// Sign-in.

	// SignIn signs in to a remote server (cancel ctx to give up); SignOut
	// forgets its sign-in.
	SignIn(ctx context.Context, name string, opts SignInOptions) error
	SignOut(ctx context.Context, name string) error
	// SignInIdP and SignOutIdP do the same at the identity provider.
	SignInIdP(ctx context.Context) error
	SignOutIdP(ctx context.Context) error

	// Secrets, kept in the keychain; values go in, never come out.

	SetSecret(ctx context.Context, req SecretRequest) error
	UnsetSecret(ctx context.Context, req SecretRequest) error
	Secrets(ctx context.Context, server string) ([]SecretInfo, error)
	// MoveSecrets keeps the keys a server's file holds in plain text in
	// the keychain; mcptray's config refers to them instead.
	MoveSecrets(ctx context.Context, server string) (MoveSecretsResult, error)

	// Tools.

	// Tools returns a server's tools; Call calls one.
	Tools(ctx context.Context, target string) ([]tools.Tool, error)
	Call(ctx context.Context, req CallRequest) (*mcp.CallToolResult, error)

	// The gateway and the apps that use it.

	// Apps lists the AI apps mcptray knows; ConnectApp and DisconnectApp
	// put mcptray into an app's config and take it out.
	Apps(ctx context.Context) ([]App, error)
	ConnectApp(ctx context.Context, req ConnectRequest) (ConnectResult, error)
	DisconnectApp(ctx context.Context, app string) (ConnectResult, error)
	// SetPermission says whether apps may call a tool; SetHidden keeps a
	// tool or a server from them; SetSearch turns search mode on or off.
	SetPermission(ctx context.Context, tool string, p Permission) error
	SetHidden(ctx context.Context, target string, hidden bool) error
	SetSearch(ctx context.Context, on bool) error
	// GatewayToken is the HTTP face's token, for the clipboard only.
	GatewayToken(ctx context.Context) (string, error)
	// SetGuardMode sets how strict the flow guard is; SetGuardLabels
	// corrects a tool's labels (guard.go).
	SetGuardMode(ctx context.Context, m GuardMode) error
	SetGuardLabels(ctx context.Context, tool string, c LabelChange, reset bool) error

	// The sandbox a local server runs in.

	SandboxOf(ctx context.Context, name string) (Sandbox, error)
	// ChangeSandbox allows a server more, or takes back what the person
	// allowed; SetSandbox turns its sandbox on or off.
	ChangeSandbox(ctx context.Context, c SandboxChange) error
	SetSandbox(ctx context.Context, name string, on bool) error
	// CheckSandbox runs the sandbox's check on this computer (a hostile
	// probe in each kind of server's sandbox) and keeps it;
	// LastSandboxCheck is the last one, nil when none ran yet.
	CheckSandbox(ctx context.Context) (sandbox.Report, error)
	LastSandboxCheck(ctx context.Context) (*sandbox.Report, error)

	// Pins: what the person saw of a server's tools.

	// AcceptTools offers held tools as they are now; KeepHeld keeps them
	// held; SetAcceptChanges turns "Accept changes from this server" on
	// or off.
	AcceptTools(ctx context.Context, server string, tools []string) (Server, error)
	KeepHeld(ctx context.Context, server string, tools []string) (Server, error)
	SetAcceptChanges(ctx context.Context, server string, on bool) error
	// LookAtTools runs a server that waits for approval once, in its
	// sandbox, and returns its tools.
	LookAtTools(ctx context.Context, server string) (Look, error)

	// The activity record.

	ActivitySettings(ctx context.Context) (ActivitySettings, error)
	SetActivitySettings(ctx context.Context, s ActivitySettings) error
	// ActivityToday sums up today's calls: how many, by which apps, and
	// how many were asked about, refused, failed or held by the guard.
	ActivityToday(ctx context.Context) (ActivitySummary, error)
	// Activity returns the rows a filter picks (at most a thousand);
	// ActivityNames the apps, servers and tools of the calls since a
	// time; VerifyActivity checks the record's chain and seals with the
	// running mcptray's keys (activity_read.go). Only the running mcptray
	// opens the record's file.
	Activity(ctx context.Context, f ActivityFilter) ([]ActivityEntry, error)
	ActivityNames(ctx context.Context, since time.Time) (ActivityNames, error)
	VerifyActivity(ctx context.Context) (ActivityVerification, error)

	// The MCP Registry's catalogue.

	// SearchCatalogue searches the registry's catalogue, kept in the
	// person's cache folder by the running mcptray (catalogue.go).
	SearchCatalogue(ctx context.Context, query string) (CatalogueResult, error)
}

var _ API = (*Service)(nil)
