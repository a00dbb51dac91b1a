package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// Approve lets a project server run exactly what it runs now, and returns
// it as approved. If its file later changes what it runs, it waits for
// approval again.
func (s *Service) Approve(ctx context.Context, name string) (Server, error) {
	return s.decide(ctx, name, config.Approved)
}

// Deny keeps a project server from running what it runs now.
func (s *Service) Deny(ctx context.Context, name string) (Server, error) {
	return s.decide(ctx, name, config.Denied)
}

func (s *Service) decide(ctx context.Context, name string, d config.Approval) (Server, error) {
	if err := s.checkOpen(); err != nil {
		return Server{}, err
	}
	e, err := s.find(s.inUse(), name)
	if err != nil {
		return Server{}, err
	}
	if !e.Scope.NeedsApproval() {
		return Server{}, newError(NotAllowed, "%s comes from the %s scope (%s), which needs no approval; only servers from project folders do",
			sanitize.Line(e.Name), e.Scope, e.Origin)
	}
	if d == config.Approved {
		// The approval binds the tree its package resolves to now (or
		// the one a look ran): another is an update (packages.go).
		if _, err := s.pinNow(ctx, e); err != nil {
			return Server{}, err
		}
	}
	if err := s.trust.Decide(ctx, e, d); err != nil {
		return Server{}, wrapError(err)
	}
	s.reload()
	return s.server(ctx, e.Name, fromEntry(e))
}

// Enable turns a server on again after Disable.
func (s *Service) Enable(ctx context.Context, name string) error {
	return s.turn(ctx, name, false)
}

// Disable turns a server off: it stops, and stays off until Enable,
// whichever app's file it comes from (that file is not edited).
func (s *Service) Disable(ctx context.Context, name string) error {
	return s.turn(ctx, name, true)
}

func (s *Service) turn(_ context.Context, name string, off bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	e, err := s.find(s.inUse(), name)
	if err != nil {
		return err
	}
	if !off && e.Disabled && !e.TurnedOff {
		return newError(NotAllowed, `%s is turned off in its own file (%s); remove "disabled": true there to turn it on`,
			sanitize.Line(e.Name), e.Origin)
	}
	err = config.ModifyUserFile(s.opts.Paths.UserFile(), func(u *config.UserFile) error {
		has := slices.Contains(u.TurnedOff, e.Signature)
		switch {
		case off && !has:
			u.TurnedOff = append(u.TurnedOff, e.Signature)
		case !off && has:
			u.TurnedOff = slices.DeleteFunc(u.TurnedOff, func(sig string) bool { return sig == e.Signature })
		default:
			return errUnchanged
		}
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		return wrapError(err)
	}
	s.reload()
	return nil
}

// errUnchanged tells ModifyUserFile that there is nothing to write.
var errUnchanged = errors.New("nothing to change")

// Retry connects a failed or signed-out server again at once, without
// waiting for its backoff; a server whose package or image could not be
// pinned is pinned again.
func (s *Service) Retry(ctx context.Context, name string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if _, err := s.find(s.current(), name); err != nil && name != builtinName {
		return err
	}
	if s.forgetFailedPin(name) {
		s.reload()
		return nil
	}
	return wrapError(s.conns.Retry(name))
}

// PauseAll stops every server until ResumeAll. Paused lasts until mcptray
// quits.
func (s *Service) PauseAll(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.mu.Lock()
	s.paused = true
	s.mu.Unlock()
	if err := s.conns.Apply(&config.Set{}); err != nil {
		return wrapError(err)
	}
	s.notices.Publish(struct{}{})
	return nil
}

// ResumeAll starts every server again after PauseAll.
func (s *Service) ResumeAll(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.mu.Lock()
	s.paused = false
	s.mu.Unlock()
	s.reload()
	return nil
}

// AddRequest is a server to add to mcptray's own config: its name and its
// entry as a config file writes it ({"command": …} or {"url": …}).
type AddRequest struct {
	Name  string          `json:"name"`
	Entry json.RawMessage `json:"entry"`
	// Secrets are values to keep in the keychain, by the name Entry
	// refers to them with (${secret:NAME}); Entry never holds them.
	Secrets map[string]string `json:"secrets,omitempty"`
	// Registry is the MCP Registry's entry it was installed from, if any:
	// the hosts it declares there (its remotes, its packages' registries)
	// are what a local server's sandbox lets it reach from the start.
	Registry *registry.ServerDetail `json:"registry,omitempty"`
	// Given are, with Registry, the values the person typed that went
	// into the command's arguments (registry.Plan.Given). A local
	// server's command line then gives it nothing (its publisher wrote
	// it): it may reach the folders and files these name, as a command
	// the person wrote would (sandbox.ArgGrants), and nothing else of it.
	// A value its command line does not hold gives nothing.
	Given []string `json:"given,omitempty"`
}

// AddResult is what Add did.
type AddResult struct {
	// File is the config file the server was written to.
	File   string `json:"file"`
	Server Server `json:"server"`
	// Note says, when it is so, why the new server will not run on its
	// own (the same server is configured elsewhere).
	Note string `json:"note,omitempty"`
	// Package is the npm package it runs, pinned as it was added
	// (added.go); nil for a server that runs none.
	Package *PackageView `json:"package,omitempty"`
}

// Add writes a new server into mcptray's own config file, keeps its
// secrets in the keychain, and starts it. When it fails, neither the file
// nor the keychain has changed.
func (s *Service) Add(ctx context.Context, req AddRequest) (AddResult, error) {
	if err := s.checkOpen(); err != nil {
		return AddResult{}, err
	}
	if err := checkName(req.Name); err != nil {
		return AddResult{}, err
	}
	file := s.opts.Paths.UserFile()
	src := config.Source{Scope: config.User, App: "mcptray", File: file}
	vars := config.Vars{Lookup: s.opts.Lookup, Home: s.opts.Paths.Home}
	sv, err := config.ParseServer(req.Name, req.Entry, src, vars)
	if err != nil {
		return AddResult{}, newError(Invalid, "%s %v", sanitize.Line(req.Name), err)
	}
	if sv.Transport.Remote() {
		if _, err := checkAddress(sv.URL); err != nil { // checks.go
			return AddResult{}, err
		}
	}
	pkg := s.pinAdded(ctx, &sv) // added.go
	undo := func() {}
	err = config.ModifyUserFile(file, func(u *config.UserFile) error {
		if _, ok := u.MCPServers[req.Name]; ok {
			return newError(Invalid, "you already have a server called %q; remove it first or choose another name", req.Name)
		}
		if len(req.Secrets) > 0 {
			stored, err := s.putSecrets(ctx, &sv, req.Secrets)
			if err != nil {
				return err
			}
			undo = stored
		}
		u.MCPServers[req.Name] = req.Entry
		// A new server starts with none of an old one's allowances, even
		// one of the same name: only what it declares.
		return u.ChangeSandbox(req.Name, func(st *sandbox.Settings) {
			*st = sandbox.Settings{}
			if sv.Transport == config.Stdio && req.Registry != nil {
				st.Hosts = egress.Declared("", nil, req.Registry)
				st.ArgsGrantNothing = true
				st.Read, st.Write = givenGrants(s.opts.Paths.Home, sv.Args, req.Given)
			}
		})
	})
	if err != nil {
		undo()
		return AddResult{}, wrapError(err)
	}
	if len(req.Secrets) > 0 {
		s.rememberSecrets(config.User, file, req.Name, slices.Sorted(maps.Keys(req.Secrets)))
	}
	set := s.reload()
	res := AddResult{File: file, Package: pkg}
	for i := range set.Suppressed {
		if e := &set.Suppressed[i]; e.Scope == config.User && e.ConfigName == req.Name {
			res.Note = e.Suppressed
			res.Server = fromEntry(e)
			return res, nil
		}
	}
	e, _ := set.Find(req.Name)
	fallback := Server{Name: sv.Name, ConfigName: sv.Name, Scope: sv.Scope, Transport: sv.Transport,
		Command: sv.Command, Args: sv.Args, Cwd: sv.Cwd, EnvNames: sv.EnvNames(), URL: sv.URL, HeaderNames: sv.HeaderNames()}
	if e != nil {
		fallback = fromEntry(e)
	}
	res.Server, _ = s.server(ctx, fallback.Name, fallback)
	return res, nil
}

// givenGrants are the folders and files the values given name, among
// args, as the person's settings keep them (sandbox.GrantPath, with ~ for
// the home): what the command-line rule would have given for them
// (sandbox.ArgGrants). A value no argument holds gives nothing.
func givenGrants(home string, args, given []string) (read, write []string) {
	if home == "" {
		return nil, nil
	}
	r, w := sandbox.ArgGrants(home, registry.GivenPaths(args, given))
	spell := func(list []string) []string {
		var out []string
		for _, p := range list {
			full, err := sandbox.GrantPath(home, p)
			if err != nil {
				continue
			}
			if t := sandbox.Tilde(filepath.Clean(home), full); !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	return spell(r), spell(w)
}

// RemoveResult is what Remove did.
type RemoveResult struct {
	// File is the config file the server was removed from.
	File string `json:"file"`
	// Warning says what could not be cleaned up (its sign-in is still in
	// the keychain), or "".
	Warning string `json:"warning,omitempty"`
}

// Remove takes a server out of mcptray's own config file, stops it,
// removes its data folder once its process is gone (datafolders.go), and
// forgets its sign-in unless another configured server reaches the same
// URL. Servers from other files are not removed: the error says which file
// to edit, or to deny it.
func (s *Service) Remove(ctx context.Context, name string) (RemoveResult, error) {
	if err := s.checkOpen(); err != nil {
		return RemoveResult{}, err
	}
	file := s.opts.Paths.UserFile()
	before := s.inUse()
	err := config.ModifyUserFile(file, func(u *config.UserFile) error {
		if _, ok := u.MCPServers[name]; !ok {
			return errUnchanged
		}
		delete(u.MCPServers, name)
		// What the person allowed it goes with it.
		return u.ChangeSandbox(name, func(st *sandbox.Settings) { *st = sandbox.Settings{} })
	})
	if err == nil {
		after := s.reload()
		s.data.WaitRemoved(ctx, before, name)
		res := RemoveResult{File: file}
		var warnings []string
		for _, werr := range []error{s.forgetSignIn(ctx, before, after, name), s.forgetSecrets(ctx, before, name), s.removeBundle(before, name)} {
			if werr != nil {
				warnings = append(warnings, werr.Error())
			}
		}
		res.Warning = strings.Join(warnings, "; ")
		return res, nil
	}
	if !errors.Is(err, errUnchanged) {
		return RemoveResult{}, wrapError(err)
	}
	e, err := s.find(before, name)
	if err != nil {
		return RemoveResult{}, err
	}
	hint := "edit that file"
	if e.Scope.NeedsApproval() {
		hint = "edit that file, or deny it"
	}
	return RemoveResult{}, newError(NotAllowed, "%s comes from %s (%s scope), not from your mcptray config; to remove it, %s",
		sanitize.Line(e.Name), e.Origin, e.Scope, hint)
}

// forgetSignIn deletes the keychain items of a removed remote server,
// unless a server still configured reaches the same URL and so shares them.
func (s *Service) forgetSignIn(ctx context.Context, before, after *config.Set, name string) error {
	var gone *config.Server
	for _, e := range append(slices.Clone(before.Servers), before.Suppressed...) {
		if e.Scope == config.User && e.ConfigName == name && e.Transport.Remote() {
			gone = &e.Server
			break
		}
	}
	if gone == nil {
		return nil
	}
	sig := config.Signature(gone)
	for _, e := range after.Servers {
		if e.Signature == sig {
			return nil // still in use
		}
	}
	if err := s.auth.SignOut(ctx, gone); err != nil {
		return fmt.Errorf("its sign-in is still in your keychain (%s); sign out of %s to remove it",
			sanitize.Line(err.Error()), sanitize.Line(gone.URL))
	}
	return nil
}

// find looks a server up by name, and when it does not run says why.
func (s *Service) find(set *config.Set, name string) (*config.Entry, error) {
	if e, ok := set.Find(name); ok {
		return e, nil
	}
	for _, e := range set.Suppressed {
		if e.Name == name || e.ConfigName == name {
			return nil, newError(NotAllowed, "%s (%s) does not run: %s", sanitize.Line(name), e.Origin, sanitize.Line(e.Suppressed))
		}
	}
	for _, p := range set.Problems {
		if p.Server == name {
			return nil, newError(Invalid, "%s has a problem in its config: %s", sanitize.Line(name), sanitize.Line(p.Error()))
		}
	}
	return nil, newError(NotFound, "there is no server called %q", sanitize.Line(name))
}

// server returns the named server from a fresh snapshot, or fallback.
func (s *Service) server(ctx context.Context, name string, fallback Server) (Server, error) {
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return fallback, nil
	}
	if sv, ok := snap.Find(name); ok {
		return sv, nil
	}
	return fallback, nil
}
