package control

import (
	"context"
	"net/http"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// route is one request the endpoint answers: its pattern (method and
// path), the method of the API (core/service/api.go) it serves, "" for
// what only the endpoint adds, and what answers it.
type route struct {
	pattern string
	api     string
	handle  http.HandlerFunc
}

// routes are every request the endpoint answers, in one table. The paths
// are strings, so nothing checks them when the program is built: the
// routes test does, for each method of the API, that the table names one
// route for it, that the route calls that method, and that the Client's
// method asks for that route. Each guarded but the two in openRoutes.
func (s *Endpoint) routes() []route {
	b := s.API
	return []route{
		// Is an mcptray running, and which one.
		{"GET /v1/hello", "", s.hello},

		// What there is.
		{"GET /v1/snapshot", "Snapshot", noBody(b.Snapshot)},
		{"GET /v1/events", "Subscribe", serveStream(s.events)},
		{"POST /v1/settle", "Settle", noBody(b.Settle)}, // settled as far as it will: what there is

		// Servers: trust, on and off.
		{"POST /v1/approve", "Approve", byName(b.Approve)},
		{"POST /v1/deny", "Deny", byName(b.Deny)},
		{"POST /v1/enable", "Enable", byNameDone(b.Enable)},
		{"POST /v1/disable", "Disable", byNameDone(b.Disable)},
		{"POST /v1/retry", "Retry", byNameDone(b.Retry)},
		{"POST /v1/pause", "PauseAll", noBodyDone(b.PauseAll)},
		{"POST /v1/resume", "ResumeAll", noBodyDone(b.ResumeAll)},

		// Servers and folders: adding and removing.
		{"POST /v1/add", "Add", byJSON(b.Add)},
		{"POST /v1/remove", "Remove", byName(b.Remove)},
		{"POST /v1/install-bundle", "InstallBundle", byJSON(b.InstallBundle)},
		{"POST /v1/folders/add", "AddFolder", byJSON(func(ctx context.Context, req folderRequest) (service.FolderResult, error) {
			return b.AddFolder(ctx, req.Folder)
		})},
		{"POST /v1/folders/remove", "RemoveFolder", byJSONDone(func(ctx context.Context, req folderRequest) error {
			return b.RemoveFolder(ctx, req.Folder)
		})},
		{"POST /v1/folders/demo", "AddDemo", noBody(b.AddDemo)},

		// Sign-in. The person may take minutes in the browser; a client
		// that goes away cancels the sign-in through the request's context.
		{"POST /v1/sign-in", "SignIn", byJSONDone(func(ctx context.Context, req signInRequest) error {
			return b.SignIn(ctx, req.Name, req.Options)
		})},
		{"POST /v1/sign-out", "SignOut", byNameDone(b.SignOut)},
		{"POST /v1/sign-in-idp", "SignInIdP", noBodyDone(b.SignInIdP)},
		{"POST /v1/sign-out-idp", "SignOutIdP", noBodyDone(b.SignOutIdP)},

		// Secrets: values go in, never come out.
		{"POST /v1/secrets/set", "SetSecret", byJSONDone(b.SetSecret)},
		{"POST /v1/secrets/unset", "UnsetSecret", byJSONDone(b.UnsetSecret)},
		{"POST /v1/secrets", "Secrets", byName(func(ctx context.Context, name string) (secretsResponse, error) {
			list, err := b.Secrets(ctx, name)
			return secretsResponse{Secrets: list}, err
		})},
		{"POST /v1/secrets/move", "MoveSecrets", byName(b.MoveSecrets)},

		// Tools.
		{"POST /v1/tools", "Tools", byName(func(ctx context.Context, name string) (toolsResponse, error) {
			list, err := b.Tools(ctx, name)
			if list == nil {
				list = []tools.Tool{}
			}
			return toolsResponse{Tools: list}, err
		})},
		{"POST /v1/call", "Call", byJSON(b.Call)},

		// The gateway and the apps that use it.
		{"GET /v1/apps", "Apps", noBody(func(ctx context.Context) (appsResponse, error) {
			list, err := b.Apps(ctx)
			if list == nil {
				list = []service.App{}
			}
			return appsResponse{Apps: list}, err
		})},
		{"POST /v1/apps/connect", "ConnectApp", byJSON(b.ConnectApp)},
		{"POST /v1/apps/disconnect", "DisconnectApp", byName(b.DisconnectApp)},
		{"POST /v1/gateway/permission", "SetPermission", byJSONDone(func(ctx context.Context, req permissionRequest) error {
			return b.SetPermission(ctx, req.Tool, req.Permission)
		})},
		{"POST /v1/gateway/hidden", "SetHidden", byJSONDone(func(ctx context.Context, req hiddenRequest) error {
			return b.SetHidden(ctx, req.Target, req.Hidden)
		})},
		{"POST /v1/gateway/search", "SetSearch", byJSONDone(func(ctx context.Context, req searchRequest) error {
			return b.SetSearch(ctx, req.On)
		})},
		{"GET /v1/gateway/token", "GatewayToken", noBody(func(ctx context.Context) (tokenResponse, error) {
			tok, err := b.GatewayToken(ctx)
			return tokenResponse{Token: tok}, err
		})},
		{"POST /v1/gateway/guard/mode", "SetGuardMode", byJSONDone(func(ctx context.Context, req guardModeRequest) error {
			return b.SetGuardMode(ctx, req.Mode)
		})},
		{"POST /v1/gateway/guard/labels", "SetGuardLabels", byJSONDone(func(ctx context.Context, req guardLabelsRequest) error {
			return b.SetGuardLabels(ctx, req.Tool, req.Change, req.Reset)
		})},
		{"GET /v1/gateway", "", s.gatewayStatus},
		{"POST " + streamPath, "", s.mcpStream},

		// The sandbox a local server runs in.
		{"POST /v1/sandbox/show", "SandboxOf", byName(b.SandboxOf)},
		{"POST /v1/sandbox/change", "ChangeSandbox", byJSONDone(b.ChangeSandbox)},
		{"POST /v1/sandbox/switch", "SetSandbox", byJSONDone(func(ctx context.Context, req sandboxSwitch) error {
			return b.SetSandbox(ctx, req.Name, req.On)
		})},
		{"POST /v1/sandbox/check", "CheckSandbox", noBody(b.CheckSandbox)},
		{"POST /v1/sandbox/last-check", "LastSandboxCheck", noBody(b.LastSandboxCheck)},

		// Pins: what the person saw of a server's tools.
		{"POST /v1/pins/accept", "AcceptTools", byJSON(func(ctx context.Context, req acceptRequest) (service.Server, error) {
			return b.AcceptTools(ctx, req.Name, req.Tools)
		})},
		{"POST /v1/pins/keep", "KeepHeld", byJSON(func(ctx context.Context, req acceptRequest) (service.Server, error) {
			return b.KeepHeld(ctx, req.Name, req.Tools)
		})},
		{"POST /v1/pins/accept-changes", "SetAcceptChanges", byJSONDone(func(ctx context.Context, req acceptChangesRequest) error {
			return b.SetAcceptChanges(ctx, req.Name, req.On)
		})},
		{"POST /v1/pins/look", "LookAtTools", byName(b.LookAtTools)},

		// The activity record.
		{"GET /v1/activity/settings", "ActivitySettings", noBody(b.ActivitySettings)},
		{"POST /v1/activity/settings", "SetActivitySettings", byJSONDone(b.SetActivitySettings)},
		{"GET /v1/activity/today", "ActivityToday", noBody(b.ActivityToday)},
		{"POST /v1/activity/rows", "Activity", byJSON(b.Activity)},
		{"POST /v1/activity/names", "ActivityNames", byJSON(func(ctx context.Context, req namesRequest) (service.ActivityNames, error) {
			return b.ActivityNames(ctx, req.Since)
		})},
		{"POST /v1/activity/verify", "VerifyActivity", noBody(b.VerifyActivity)},

		// The MCP Registry's catalogue.
		{"POST /v1/catalogue/search", "SearchCatalogue", byJSON(func(ctx context.Context, req catalogueRequest) (service.CatalogueResult, error) {
			return b.SearchCatalogue(ctx, req.Query)
		})},

		// The window, and what only it asks.
		{"GET /v1/focus", "", serveStream(s.focusStream)},
		{"GET /v1/questions", "", serveStream(s.questionStream)},
		{"POST /v1/answer", "", s.answerQuestion},
		{"POST /v1/window", "", s.openWindow},
		{"POST /v1/quit", "", s.quit},
	}
}

// handler serves the table.
func (s *Endpoint) handler() *http.ServeMux {
	mux := http.NewServeMux()
	for _, r := range s.routes() {
		mux.HandleFunc(r.pattern, r.handle)
	}
	return mux
}

// noBody serves fn's answer; the request's body, if any, says nothing.
func noBody[Res any](fn func(context.Context) (Res, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := fn(r.Context())
		reply(w, res, err)
	}
}

// noBodyDone serves fn, with an empty answer.
func noBodyDone(fn func(context.Context) error) http.HandlerFunc {
	return noBody(func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
}

// byJSON serves fn: a Req in the body, fn's answer back.
func byJSON[Req, Res any](fn func(context.Context, Req) (Res, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if !decode(w, r, &req) {
			return
		}
		res, err := fn(r.Context(), req)
		reply(w, res, err)
	}
}

// byJSONDone serves fn: a Req in the body, an empty answer back.
func byJSONDone[Req any](fn func(context.Context, Req) error) http.HandlerFunc {
	return byJSON(func(ctx context.Context, req Req) (struct{}, error) { return struct{}{}, fn(ctx, req) })
}

// byName serves fn for the server {name} the body names.
func byName[Res any](fn func(context.Context, string) (Res, error)) http.HandlerFunc {
	return byJSON(func(ctx context.Context, req nameRequest) (Res, error) { return fn(ctx, req.Name) })
}

// byNameDone serves fn for the server {name} the body names, with an
// empty answer.
func byNameDone(fn func(context.Context, string) error) http.HandlerFunc {
	return byJSONDone(func(ctx context.Context, req nameRequest) error { return fn(ctx, req.Name) })
}

// hello says that an mcptray runs, and which.
func (s *Endpoint) hello(w http.ResponseWriter, r *http.Request) {
	snap, err := s.API.Snapshot(r.Context())
	reply(w, hello{Version: snap.Version, PID: os.Getpid()}, err)
}

// gatewayStatus says how the gateway's HTTP face is doing.
func (s *Endpoint) gatewayStatus(w http.ResponseWriter, r *http.Request) {
	if s.Gateway == nil {
		reply(w, nil, &service.Error{Code: service.NotFound, Msg: "this mcptray runs no gateway"})
		return
	}
	reply(w, s.Gateway(), nil)
}

// quit stops this mcptray, as its tray's Quit would.
func (s *Endpoint) quit(w http.ResponseWriter, r *http.Request) {
	if s.Quit == nil {
		reply(w, nil, &service.Error{Code: service.NotAllowed, Msg: "this mcptray cannot be stopped from the command line"})
		return
	}
	reply(w, struct{}{}, nil)
	s.Quit() // the control endpoint stops after this answer, and the servers after it
}

// openWindow opens the window, or brings it forward, at a server or at a
// bundle's install dialog.
func (s *Endpoint) openWindow(w http.ResponseWriter, r *http.Request) {
	var req WindowRequest
	if !decode(w, r, &req) {
		return
	}
	if s.OpenWindow == nil || req.Bundle != "" && s.OpenBundle == nil {
		reply(w, nil, &service.Error{Code: service.NotAllowed, Msg: "this mcptray runs without a window (mcptray serve)"})
		return
	}
	if req.Bundle != "" {
		if !filepath.IsAbs(req.Bundle) {
			reply(w, nil, &service.Error{Code: service.Invalid, Msg: "the bundle's file must be given as a full path"})
			return
		}
		reply(w, struct{}{}, s.OpenBundle(req.Bundle))
		return
	}
	reply(w, struct{}{}, s.OpenWindow(req.Server))
}
