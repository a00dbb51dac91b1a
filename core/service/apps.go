package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/secret"
)

// AppSession is one app's session with the gateway, as the gateway saw it.
type AppSession struct {
	// Client and ClientVersion are the clientInfo the app sent in
	// initialize.
	Client        string `json:"client"`
	ClientVersion string `json:"clientVersion,omitempty"`
	// App is the app as mcptray's config names it ("Cursor"), or "" when
	// the gateway does not know the client.
	App string `json:"app,omitempty"`
	// Face is how it reaches the gateway: "stdio" (mcptray stdio) or
	// "http".
	Face     string    `json:"face"`
	Started  time.Time `json:"started"`
	LastSeen time.Time `json:"lastSeen"`
	// Listed says it asked for the tools; Tools is how many it was given
	// the last time.
	Listed bool `json:"listed,omitempty"`
	Tools  int  `json:"tools"`
	// Ended says the session is over (the app quit or went away).
	Ended bool `json:"ended,omitempty"`
	// ToolLimit is how many tools the app can use (0: no known limit);
	// ToolWarning says in plain words when Tools is near or over it.
	ToolLimit   int    `json:"toolLimit,omitempty"`
	ToolWarning string `json:"toolWarning,omitempty"`
}

// AppState is how an app stands with the gateway.
type AppState string

// The states of an App.
const (
	// AppNotConnected: its config does not run mcptray's gateway.
	AppNotConnected AppState = "not-connected"
	// AppWaiting: just connected; the app has not started the gateway yet.
	AppWaiting AppState = "waiting"
	// AppNotArrived: connected a while ago (ArrivalWindow), and the app
	// has still not started the gateway.
	AppNotArrived AppState = "not-arrived"
	// AppIdle: connected, but no session now.
	AppIdle AppState = "idle"
	// AppInUse: it has a session with the gateway now.
	AppInUse AppState = "in-use"
)

// ArrivalWindow is how long after ConnectApp an app is expected to have
// started the gateway: it must be quit fully and opened again, which a
// person does in a minute.
const ArrivalWindow = 2 * time.Minute

// App is an AI app on this computer as the gateway sees it.
type App struct {
	// Key is the app as the command line names it ("cursor"); "" for an
	// app mcptray knows only from its sessions.
	Key  string `json:"key,omitempty"`
	Name string `json:"name"`
	// File is its MCP config file.
	File string `json:"file,omitempty"`
	// Found says it seems installed here (its config or folder exists).
	Found bool `json:"found"`
	// Connected says its config runs mcptray's gateway.
	Connected bool `json:"connected"`
	// ConnectedAt is when this mcptray connected it; zero when it was
	// connected before this mcptray started, or elsewhere.
	ConnectedAt time.Time `json:"connectedAt,omitzero"`
	State       AppState  `json:"state"`
	// Status says State in words; Hint what to do, when anything.
	Status string `json:"status"`
	Hint   string `json:"hint,omitempty"`
	// Tools is how many tools it sees now; ToolWarning says when that is
	// near or over what it can use.
	Tools       int    `json:"tools"`
	ToolWarning string `json:"toolWarning,omitempty"`
	// LastSeen is when the gateway last saw it, in this mcptray or an
	// earlier one; LastTools is how many tools it was given the last time
	// it asked (0: never).
	LastSeen  time.Time `json:"lastSeen,omitzero"`
	LastTools int       `json:"lastTools,omitempty"`
	// Sessions are its sessions since this mcptray started, live first.
	Sessions []AppSession `json:"sessions,omitempty"`
	// Movable are servers of its config that mcptray runs from another
	// config: connecting can take them out of its config.
	Movable []MovableServer `json:"movable,omitempty"`
	// Problem says why its config could not be read.
	Problem string `json:"problem,omitempty"`
}

// MovableServer is a server in an app's config that mcptray already runs.
type MovableServer struct {
	// Name is its name in the app's config.
	Name string `json:"name"`
	// RunsAs is the server mcptray runs it as.
	RunsAs string `json:"runsAs"`
}

// ConnectRequest asks ConnectApp to connect an app.
type ConnectRequest struct {
	// App is the app as the command line names it ("cursor").
	App string `json:"app"`
	// Move names servers of App.Movable to take out of its config, with
	// the person's consent.
	Move []string `json:"move,omitempty"`
}

// ConnectResult is what ConnectApp or DisconnectApp did.
type ConnectResult struct {
	App App `json:"app"`
	// Command is what the app now runs ("… stdio").
	Command string `json:"command,omitempty"`
	// Backup is the file as it was.
	Backup string `json:"backup,omitempty"`
	// Moved are the servers taken out of its config.
	Moved []string `json:"moved,omitempty"`
	// Changed is false when there was nothing to do (disconnecting an app
	// that was not connected).
	Changed bool `json:"changed"`
}

// appsState is what the service knows of the apps connected to the
// gateway.
type appsState struct {
	mu          sync.Mutex
	sessions    func() []AppSession
	connectedAt map[string]time.Time // by config.Source.App
	seen        seenState            // when each app was last seen (appsseen.go)
}

// FollowApps gives the service the gateway's sessions, read on each Apps
// call. The gateway calls the returned func when an app arrives, lists its
// tools or leaves, and front ends get a change notice.
func (s *Service) FollowApps(sessions func() []AppSession) (changed func()) {
	s.apps.mu.Lock()
	s.apps.sessions = sessions
	s.apps.mu.Unlock()
	poke := s.followSeen()
	return func() {
		s.notices.Publish(struct{}{})
		poke()
	}
}

// Apps returns the AI apps found on this computer, and any other app with
// a session with the gateway, each with how it stands.
func (s *Service) Apps(ctx context.Context) ([]App, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	s.apps.mu.Lock()
	read := s.apps.sessions
	connectedAt := make(map[string]time.Time, len(s.apps.connectedAt))
	for k, v := range s.apps.connectedAt {
		connectedAt[k] = v
	}
	s.apps.mu.Unlock()
	var sessions []AppSession
	if read != nil {
		sessions = read()
	}
	seen := s.noteSessions(sessions)
	now := s.opts.Now()
	set := s.current()
	p := s.opts.Paths
	var out []App
	claimed := map[int]bool{}
	keys := p.AppNames()
	for i, src := range p.ImportSources() {
		a := App{Key: keys[i], Name: src.App, File: src.File, Found: config.AppFound(src, p.Home), ConnectedAt: connectedAt[src.App]}
		a.LastSeen, a.LastTools = seen[keys[i]].LastSeen, seen[keys[i]].Tools
		var err error
		if a.Connected, err = config.AppConnected(src); err != nil {
			a.Problem = sanitize.Line(err.Error())
		}
		for j, ss := range sessions {
			if ss.App == src.App {
				a.Sessions = append(a.Sessions, ss)
				claimed[j] = true
			}
		}
		for _, e := range config.Movable(set, src) {
			a.Movable = append(a.Movable, MovableServer{Name: e.ConfigName, RunsAs: e.SuppressedBy})
		}
		a.judge(now)
		out = append(out, a)
	}
	// Apps mcptray reads no config of, known by their sessions only.
	others := map[string]int{}
	for j, ss := range sessions {
		if claimed[j] {
			continue
		}
		name := ss.App
		if name == "" {
			name = ss.Client
		}
		i, ok := others[name]
		if !ok {
			i = len(out)
			others[name] = i
			out = append(out, App{Name: sanitize.Line(name), Found: true, Connected: true})
		}
		out[i].Sessions = append(out[i].Sessions, ss)
	}
	for i := range out {
		if out[i].Key == "" {
			out[i].judge(now)
		}
	}
	return out, nil
}

// judge sets an app's State, Status, Hint and Tools from its config and
// sessions, at now.
func (a *App) judge(now time.Time) {
	// Live sessions first, the newest first.
	slices.SortStableFunc(a.Sessions, func(x, y AppSession) int {
		if x.Ended != y.Ended {
			if x.Ended {
				return 1
			}
			return -1
		}
		return y.LastSeen.Compare(x.LastSeen)
	})
	name := sanitize.Line(a.Name)
	reopen := fmt.Sprintf("Quit %s fully (Quit in its menu, not just closing its window) and open it again.", name)
	switch {
	case len(a.Sessions) > 0 && !a.Sessions[0].Ended:
		live := a.Sessions[0]
		a.State, a.Tools, a.ToolWarning = AppInUse, live.Tools, live.ToolWarning
		if live.Listed {
			a.Status = fmt.Sprintf("in use — sees %s", plural(live.Tools, "tool"))
		} else {
			a.Status = "in use — has not asked for the tools yet"
		}
		if !a.Connected && a.Key != "" {
			a.Hint = fmt.Sprintf("Its config does not start mcptray (any more): %s keeps using it until you quit it fully, unless a project's config starts mcptray for it.", name)
		}
	case !a.Connected:
		a.State, a.Status = AppNotConnected, "not connected"
	case !a.ConnectedAt.IsZero() && (len(a.Sessions) == 0 || a.Sessions[0].LastSeen.Before(a.ConnectedAt)):
		if now.Sub(a.ConnectedAt) < ArrivalWindow {
			a.State = AppWaiting
			a.Status = fmt.Sprintf("connected — waiting for %s to start it; quit it fully and open it again", name)
		} else {
			a.State = AppNotArrived
			a.Status = fmt.Sprintf("connected, but %s has not started it in %s", name, plural(int(now.Sub(a.ConnectedAt).Minutes()), "minute"))
			a.Hint = reopen + fmt.Sprintf(" If it still does not show up here, open %s's MCP settings and check that the server %q is there and turned on.", name, config.GatewayEntry)
		}
	case len(a.Sessions) > 0:
		a.State = AppIdle
		a.Status = fmt.Sprintf("connected — last used at %s", a.Sessions[0].LastSeen.Local().Format("15:04"))
	case !a.LastSeen.IsZero():
		a.State = AppIdle
		a.Status = "connected — last used " + agoWords(now.Sub(a.LastSeen))
		if a.LastTools > 0 {
			a.Status += fmt.Sprintf(", when it saw %s", plural(a.LastTools, "tool"))
		}
		a.Hint = "If " + name + " is open, " + strings.ToLower(reopen[:1]) + reopen[1:]
	default:
		a.State = AppIdle
		a.Status = "connected — not used since mcptray started"
		a.Hint = "If " + name + " is open, " + strings.ToLower(reopen[:1]) + reopen[1:]
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// gatewayCommand is the program apps run as "COMMAND stdio".
func (s *Service) gatewayCommand() (string, error) {
	if s.opts.GatewayCommand != "" {
		return s.opts.GatewayCommand, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding mcptray's own program to write into the app's config: %w", err)
	}
	return exe, nil
}

// appSource finds the app the person named.
func (s *Service) appSource(name string) (config.Source, error) {
	src, ok := s.opts.Paths.AppSource(name)
	if !ok {
		return src, newError(NotFound, "mcptray does not know the app %q; it knows %s", sanitize.Line(name), strings.Join(s.opts.Paths.AppNames(), ", "))
	}
	return src, nil
}

// ConnectApp writes the gateway (COMMAND stdio, as the server "mcptray")
// into an app's config, taking the servers req.Move names out of it in
// the same write (only servers mcptray runs from another config). The file
// as it was is kept as FILE.bak. Apps then report whether the app arrived.
func (s *Service) ConnectApp(ctx context.Context, req ConnectRequest) (ConnectResult, error) {
	if err := s.checkOpen(); err != nil {
		return ConnectResult{}, err
	}
	src, err := s.appSource(req.App)
	if err != nil {
		return ConnectResult{}, err
	}
	movable := config.Movable(s.current(), src)
	for _, name := range req.Move {
		if !slices.ContainsFunc(movable, func(e config.Entry) bool { return e.ConfigName == name }) {
			return ConnectResult{}, newError(NotAllowed, "%s's server %q is not one mcptray runs from another config; import it into mcptray first", src.App, sanitize.Line(name))
		}
	}
	exe, err := s.gatewayCommand()
	if err != nil {
		return ConnectResult{}, err
	}
	if err := config.ConnectAppMoving(src, exe, req.Move); err != nil {
		return ConnectResult{}, wrapError(err)
	}
	s.apps.mu.Lock()
	if s.apps.connectedAt == nil {
		s.apps.connectedAt = map[string]time.Time{}
	}
	s.apps.connectedAt[src.App] = s.opts.Now()
	s.apps.mu.Unlock()
	s.log.Info("connected an app to the gateway", "app", src.App, "moved", len(req.Move))
	if len(req.Move) > 0 {
		s.reload() // its moved servers give way no more
	} else {
		s.notices.Publish(struct{}{})
	}
	res := ConnectResult{Command: exe + " stdio", Backup: src.File + ".bak", Moved: req.Move, Changed: true}
	res.App, err = s.app(ctx, src.App)
	return res, err
}

// DisconnectApp takes the gateway out of an app's config again.
func (s *Service) DisconnectApp(ctx context.Context, name string) (ConnectResult, error) {
	if err := s.checkOpen(); err != nil {
		return ConnectResult{}, err
	}
	src, err := s.appSource(name)
	if err != nil {
		return ConnectResult{}, err
	}
	found, err := config.DisconnectApp(src)
	if err != nil {
		return ConnectResult{}, wrapError(err)
	}
	s.apps.mu.Lock()
	delete(s.apps.connectedAt, src.App)
	s.apps.mu.Unlock()
	s.notices.Publish(struct{}{})
	res := ConnectResult{Changed: found}
	if found {
		res.Backup = src.File + ".bak"
	}
	res.App, err = s.app(ctx, src.App)
	return res, err
}

// app returns the app called name (as the config names it) from Apps.
func (s *Service) app(ctx context.Context, name string) (App, error) {
	apps, err := s.Apps(ctx)
	if err != nil {
		return App{}, err
	}
	for _, a := range apps {
		if a.Name == name {
			return a, nil
		}
	}
	return App{}, newError(NotFound, "no app called %q", sanitize.Line(name))
}

// SetPermission sets what the gateway does when an app calls tool (its
// qualified name, mcp__SERVER__TOOL): allow, ask or block; "" goes back to
// the default (allowed when its server says it only reads, asked
// otherwise).
func (s *Service) SetPermission(ctx context.Context, tool string, p config.Permission) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if p != "" && !p.Valid() {
		return newError(Invalid, "%q is not allow, ask or block", sanitize.Line(string(p)))
	}
	if !strings.HasPrefix(tool, "mcp__") {
		return newError(Invalid, "a tool is named as apps see it, mcp__SERVER__TOOL")
	}
	err := config.ModifyGatewayRules(s.opts.Paths.UserFile(), func(r *config.GatewayRules) { r.SetPermission(tool, p) })
	if err != nil {
		return wrapError(err)
	}
	s.recordTrustBy(ctx, activity.PermissionSet, tool, permissionWord(p))
	s.reload()
	return nil
}

// SetHidden hides a tool (its qualified name) or every tool of a server
// (its name) from the apps, or offers it again.
func (s *Service) SetHidden(ctx context.Context, target string, hidden bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if strings.TrimSpace(target) == "" {
		return newError(Invalid, "name a tool (mcp__SERVER__TOOL) or a server to hide")
	}
	err := config.ModifyGatewayRules(s.opts.Paths.UserFile(), func(r *config.GatewayRules) { r.SetHidden(target, hidden) })
	if err != nil {
		return wrapError(err)
	}
	s.reload()
	return nil
}

// SetSearch turns the gateway's search mode on or off: with it on, apps
// see two tools that find and call the others instead of every tool.
func (s *Service) SetSearch(ctx context.Context, on bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := config.ModifyGatewayRules(s.opts.Paths.UserFile(), func(r *config.GatewayRules) { r.Search = on }); err != nil {
		return wrapError(err)
	}
	s.reload()
	return nil
}

// gatewayTokenKey is where the gateway's HTTP face's token is kept.
var gatewayTokenKey = secret.Key{Server: secret.GatewayServer, Kind: secret.GatewayToken}

// GatewayToken returns the token apps send to the gateway's HTTP face,
// making one and keeping it in the keychain the first time. It is the one
// owner of the token: the face, the window's Copy token and mcptray
// gateway --show-token all ask here. It is never logged or written to a
// file.
func (s *Service) GatewayToken(ctx context.Context) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	s.tokenMu.Lock() // two first asks make one token
	defer s.tokenMu.Unlock()
	v, err := s.opts.Store.Get(ctx, gatewayTokenKey)
	switch {
	case err == nil && len(v) > 0:
		return string(v), nil
	case err != nil && !errors.Is(err, secret.ErrNotFound):
		return "", wrapError(fmt.Errorf("reading the gateway's token from your keychain: %w", err))
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	if err := s.opts.Store.Set(ctx, gatewayTokenKey, []byte(tok)); err != nil {
		return "", wrapError(fmt.Errorf("keeping the gateway's token in your keychain: %w", err))
	}
	return tok, nil
}
