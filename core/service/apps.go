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

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/service/apps"
)

// The AI apps' words (core/service/apps), given here for the front ends
// and the gateway.
type (
	// AppSession is one app's session with the gateway, as the gateway
	// saw it.
	AppSession = apps.Session
	// AppState is how an app stands with the gateway.
	AppState = apps.State
	// App is an AI app on this computer as the gateway sees it.
	App = apps.App
	// MovableServer is a server in an app's config that mcptray already
	// runs.
	MovableServer = apps.Movable
)

// The states of an App (apps.State).
const (
	AppNotConnected = apps.NotConnected
	AppWaiting      = apps.Waiting
	AppNotArrived   = apps.NotArrived
	AppIdle         = apps.Idle
	AppInUse        = apps.InUse
)

// ArrivalWindow is how long after ConnectApp an app is expected to have
// started the gateway.
const ArrivalWindow = apps.ArrivalWindow

// Apps returns the AI apps found on this computer, and any other app with
// a session with the gateway, each with how it stands (apps.Roster.List).
func (s *Service) Apps(ctx context.Context) ([]App, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	return s.apps.List(s.current()), nil
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
	s.apps.Connected(src.App)
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
	s.apps.Disconnected(src.App)
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
