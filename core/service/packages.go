package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/ocipin"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// PackageOptions pin the servers that run an npm package (npx) by their
// content (core/npmpin): what runs is the tree that was resolved when the
// server was approved or first started, installed without install scripts
// in a folder of mcptray's own, until the person updates it. A server that
// runs a container image (docker or podman run image:tag) is pinned the
// same way by the image's digest (core/ocipin).
type PackageOptions struct {
	// Dir holds the pinned trees and their record; "" means the
	// packages folder in mcptray's folder.
	Dir string
	// NPM is npm's program; "" looks for npm on PATH.
	NPM string
	// Env is npm's environment, whose HOME names the person's ~/.npmrc;
	// nil means the servers' (Conn.BaseEnv), or this process's with HOME
	// the person's home (Paths.Home). A server's npm config variables
	// that name its registry are added for its own (npmFor).
	Env []string
	// Every is how often the running mcptray asks the registries what is
	// new; zero asks only on demand (mcptray updates).
	Every time.Duration
	// Images asks the registries of docker (and podman) run servers'
	// images; with no Keychain, with the credentials of the docker config
	// docker reads (DOCKER_CONFIG's, or ~/.docker/config.json in the home
	// mcptray serves, and its credential helpers), and for podman's,
	// those of podman's auth files first (images).
	Images ocipin.Registry
}

// packageState is what the service keeps of the pins while it runs.
type packageState struct {
	mu sync.Mutex
	// busy names the servers whose tree is being resolved and installed.
	busy map[string]bool
	// failed is, by server, the config (approval key) whose pinning
	// failed, and why: it is not tried again until the config changes or
	// mcptray restarts.
	failed map[string]failedPin
}

type failedPin struct{ config, why string }

// PackageView is one pinned server's package, as the person sees it.
type PackageView struct {
	Server string       `json:"server"`
	Facts  npmpin.Facts `json:"facts"`
	// Words says the facts: "echo-mcp version 1.0.0, published 3 months
	// ago, 1 package in all".
	Words string `json:"words"`
	// HiddenWords says, a line each, where its packages' files hold
	// characters that do not show or change how the code reads, to be
	// read before Words; "" when none do (npmpin.Facts.HiddenWords).
	HiddenWords string `json:"hiddenWords,omitempty"`
	// Update is the newer tree found, with its review; nil when none.
	Update *npmpin.Review `json:"update,omitempty"`
	// Trial is what the update showed when mcptray started it once in
	// the server's sandbox (trial.go): its tools' changes; nil when it
	// was not tried.
	Trial *Trial `json:"trial,omitempty"`
	// Back is the version update --back goes back to; "" when none.
	Back    string    `json:"back,omitempty"`
	Checked time.Time `json:"checked,omitzero"`
}

// PackageReview is what an update changes, for the person to read
// before it runs (npmpin.Review).
type PackageReview = npmpin.Review

// PackageUpdate asks to run a server's update, or to go back.
type PackageUpdate struct {
	Name string `json:"name"`
	// Back goes back to the tree that ran before the last update.
	Back bool `json:"back,omitempty"`
	// Tree is the lockfile's hash of the update the person read
	// (PackageReview's ToHash): when the last check found another since,
	// nothing runs. "" runs whatever the last check found.
	Tree string `json:"tree,omitempty"`
}

func (s *Service) packagesDir() string {
	if s.opts.Packages.Dir != "" {
		return s.opts.Packages.Dir
	}
	return filepath.Join(s.opts.Paths.Dir(), "packages")
}

func (s *Service) packageStore() *npmpin.Store {
	return &npmpin.Store{Path: filepath.Join(s.packagesDir(), "pins.json")}
}

// npm runs the person's npm, with a cache of mcptray's own.
func (s *Service) npm() *npmpin.NPM {
	env := s.opts.Packages.Env
	if env == nil {
		env = s.opts.Conn.BaseEnv
	}
	if env == nil && s.opts.Paths.Home != "" {
		// This process's, in the home mcptray serves, whose ~/.npmrc
		// names the registry.
		env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }), "HOME="+s.opts.Paths.Home)
	}
	return &npmpin.NPM{Path: s.opts.Packages.NPM, Env: env, Cache: filepath.Join(s.packagesDir(), "cache"), Logger: s.log}
}

// npmFor runs the person's npm for the server sv, as npx would run for
// it: over mcptray's own environment, the npm config variables of sv's
// env that say which registry npm asks, and that registry's own keys
// (npmpin.ServerEnv: npm_config_registry, npm_config_//host/:_authToken,
// …), each ${secret:NAME} read from the keychain for a server of the
// person's own config (one of another scope's that names a secret is
// left out); no other variable of sv's env reaches npm, which runs
// outside any sandbox. nil sv: npm.
//
// Only a server the person set up (their config, an app's they set up
// by hand, their organisation's) gives npm its env: a folder's or a
// project's file is read with its ${VAR}s filled in from mcptray's own
// environment and looked at before its approval, so its env could hand
// npm a token of the person's for a host the file names.
func (s *Service) npmFor(ctx context.Context, sv *config.Server) *npmpin.NPM {
	n := s.npm()
	if sv == nil || len(sv.Env) == 0 || !ownNpmConfig(sv.Scope) {
		return n
	}
	keep, left := npmpin.ServerEnv(sv.Env)
	if len(left) > 0 {
		s.log.Info("npm config variables of a server's env that npm is not given", "server", sv.Name, "names", strings.Join(left, " "))
	}
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clone(env)
	for _, kv := range keep {
		name, v, _ := strings.Cut(kv, "=")
		v, err := config.ReplaceSecretRefs(v, func(secret string) (string, error) {
			if sv.Scope != config.User {
				// npm runs outside the sandbox and its network
				// policy: a changed project file, not approved yet,
				// would send its server's secret where it names.
				return "", errors.New("a secret is read for npm only in your own config's servers")
			}
			return s.readSecret(ctx, sv, secret)
		})
		if err != nil {
			s.log.Info("reading a secret of a server's npm config", "server", sv.Name, "variable", name, "err", err)
			continue
		}
		env = slices.DeleteFunc(env, func(b string) bool { bn, _, _ := strings.Cut(b, "="); return npmpin.SameKey(bn, name) })
		env = append(env, name+"="+v)
	}
	n.Env = env
	return n
}

// ownNpmConfig says whether a server of scope may give npm its npm
// config variables (npmFor).
func ownNpmConfig(scope config.Scope) bool {
	switch scope {
	case config.User, config.Imported, config.Enterprise:
		return true
	}
	return false
}

// npmOf is npmFor the configured server called name, or npm when there
// is none by that name.
func (s *Service) npmOf(ctx context.Context, name string) *npmpin.NPM {
	if e, err := s.find(s.current(), name); err == nil {
		return s.npmFor(ctx, &e.Server)
	}
	return s.npm()
}

// images asks the registries of docker run servers' images, with the
// person's docker credentials; podman's (podman true), with podman's
// first.
func (s *Service) images(podman bool) ocipin.Registry {
	r := s.opts.Packages.Images
	if r.Keychain != nil {
		return r
	}
	// Where docker reads it: DOCKER_CONFIG, or ~/.docker.
	docker := ""
	if dir, ok := s.opts.Lookup("DOCKER_CONFIG"); ok && filepath.IsAbs(dir) {
		docker = dir
	} else if s.opts.Paths.Home != "" {
		docker = filepath.Join(s.opts.Paths.Home, ".docker")
	}
	if podman {
		files, alone := s.podmanAuthFiles()
		if alone {
			docker = "" // podman reads the file REGISTRY_AUTH_FILE names alone
		}
		r.Keychain = ocipin.PodmanKeychain(files, docker)
	} else if docker != "" {
		r.Keychain = ocipin.ConfigKeychain(docker)
	}
	return r
}

// podmanAuthFiles are the files podman reads its registries' credentials
// from, before docker's config, in its order, in the home mcptray
// serves: REGISTRY_AUTH_FILE's alone when it is set (and then, as
// podman, not docker's config either: alone); otherwise
// ${XDG_RUNTIME_DIR}/containers/auth.json, then
// ${XDG_CONFIG_HOME:-~/.config}/containers/auth.json.
func (s *Service) podmanAuthFiles() (files []string, alone bool) {
	if f, ok := s.opts.Lookup("REGISTRY_AUTH_FILE"); ok && filepath.IsAbs(f) {
		return []string{f}, true
	}
	if dir, ok := s.opts.Lookup("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(dir) {
		files = append(files, filepath.Join(dir, "containers", "auth.json"))
	}
	if dir, ok := s.opts.Lookup("XDG_CONFIG_HOME"); ok && filepath.IsAbs(dir) {
		files = append(files, filepath.Join(dir, "containers", "auth.json"))
	} else if s.opts.Paths.Home != "" {
		files = append(files, filepath.Join(s.opts.Paths.Home, ".config", "containers", "auth.json"))
	}
	return files, false
}

// packageSpec is the package e's server runs, when it is pinned: a local
// server whose command is npx with a registry's package, or docker (or
// podman) run with an image's tag, that may run.
func packageSpec(e *config.Entry) (npmpin.Spec, bool) {
	if e.Transport != config.Stdio || e.Bundle != nil || e.Disabled ||
		e.Approval == config.Undecided || e.Approval == config.Denied {
		return npmpin.Spec{}, false
	}
	return detectPin(e.Command, e.Args)
}

// detectPin reads what a command runs that is pinned: an npm package
// (npx), or a container image (docker or podman run image:tag).
func detectPin(command string, args []string) (npmpin.Spec, bool) {
	if spec, ok := npmpin.Detect(command, args); ok {
		return spec, true
	}
	if img, ok := ocipin.Detect(command, args); ok {
		return npmpin.ImageSpec(img), true
	}
	return npmpin.Spec{}, false
}

// pinnedSet is set with each pinned server's command replaced by its
// pinned tree's program. A server not pinned yet is held (as waiting for
// approval) while its tree is resolved and installed, and runs once it is;
// one whose tree no longer is what was pinned is held, and the log says
// why.
func (s *Service) pinnedSet(set *config.Set) *config.Set {
	if s.opts.Packages == nil {
		return set
	}
	recs, err := s.packageStore().Load()
	if err != nil {
		s.log.Warn("pinned packages", "err", err)
		recs = nil
	}
	out := *set
	out.Servers = slices.Clone(set.Servers)
	for i := range out.Servers {
		e := &out.Servers[i]
		spec, ok := packageSpec(e)
		if !ok {
			continue
		}
		rec, have := recs[e.Name]
		if have && rec.Config == e.ApprovalKey {
			err := s.runPinned(e, rec.Current)
			if err == nil {
				continue
			}
			s.log.Warn("held: its pinned package is not what was pinned", "server", e.Name, "err", err)
			e.Approval = config.Undecided
			s.pinLater(e.Server, e.ApprovalKey, spec, &rec.Current)
			continue
		}
		e.Approval = config.Undecided
		s.pinLater(e.Server, e.ApprovalKey, spec, nil)
	}
	return &out
}

// pinnedProgram is what runs p: node beside the npx the config named, when
// there is one there, and the package's program.
func (s *Service) pinnedProgram(p npmpin.Pin, npx string) (string, []string, error) {
	if err := p.Check(); err != nil {
		return "", nil, err
	}
	if !p.Installed() {
		return "", nil, fmt.Errorf("%s's tree %s is not installed", p.Spec.Package, p.Short())
	}
	command, args, err := p.Program()
	if err != nil {
		return "", nil, err
	}
	if command == "node" && filepath.IsAbs(npx) {
		if node := filepath.Join(filepath.Dir(npx), "node"); isFile(node) {
			command = node
		}
	}
	return command, args, nil
}

// runPinned makes e run p's tree: its program, and its node_modules to
// read, which a command the person did not write would not give
// (Settings.ArgsGrantNothing).
func (s *Service) runPinned(e *config.Entry, p npmpin.Pin) error {
	if p.Image != nil {
		// docker run … image@sha256:…, and every other argument as
		// written: docker checks what it pulls against the digest.
		spec, ok := ocipin.Detect(e.Command, e.Args)
		if err := p.Check(); err != nil {
			return err
		}
		if !ok || spec.Image != p.Spec.Package || spec.Podman != p.Spec.Podman {
			return fmt.Errorf("its command no longer runs the image %s that was pinned", p.Spec.Package)
		}
		e.Args = spec.Pinned(e.Args, p.Image.Digest)
		return nil
	}
	command, args, err := s.pinnedProgram(p, e.Command)
	if err != nil {
		return err
	}
	e.Command, e.Args = command, args
	e.Sandbox.Read = append(slices.Clone(e.Sandbox.Read), filepath.Join(p.Dir, "node_modules"))
	return nil
}

// pinNow pins e's package for what its config asks now, unless it is
// pinned for that already, and returns its pin; nil for a server that
// runs no npm package, or where packages are not pinned.
func (s *Service) pinNow(ctx context.Context, e *config.Entry) (*npmpin.Pin, error) {
	if s.opts.Packages == nil || e.Transport != config.Stdio || e.Bundle != nil {
		return nil, nil
	}
	spec, ok := detectPin(e.Command, e.Args)
	if !ok {
		return nil, nil
	}
	get := func() (*npmpin.Pin, error) {
		rec, have, err := s.packageStore().Get(e.Name)
		if err != nil || !have || rec.Config != e.ApprovalKey {
			return nil, err
		}
		return &rec.Current, nil
	}
	if p, err := get(); p != nil || err != nil {
		return p, wrapError(err)
	}
	if err := s.pin(ctx, &e.Server, e.ApprovalKey, spec, nil); err != nil {
		return nil, wrapError(fmt.Errorf("pinning %s: %w", spec.Request(), err))
	}
	return get()
}

// packageView is the facts of p, for the server sv.
func (s *Service) packageView(ctx context.Context, sv *config.Server, p npmpin.Pin) *PackageView {
	f := s.npmFor(ctx, sv).Facts(ctx, p)
	return &PackageView{Server: sv.Name, Facts: f, Words: f.Words(s.opts.Now()), HiddenWords: f.HiddenWords()}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// forgetFailedPin lets the next reload pin name again after a failure,
// and reports whether there was one.
func (s *Service) forgetFailedPin(name string) bool {
	st := &s.packages
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.failed[name]
	delete(st.failed, name)
	return ok
}

// pinLater resolves and installs the tree of a server not pinned yet (or
// installs again the tree again pinned for it, again), in the background,
// and runs the server once it is: at most once at a time, and not again
// after a failure for the same config.
func (s *Service) pinLater(sv config.Server, key string, spec npmpin.Spec, again *npmpin.Pin) {
	name := sv.Name
	st := &s.packages
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.busy == nil {
		st.busy, st.failed = map[string]bool{}, map[string]failedPin{}
	}
	if st.busy[name] || st.failed[name].config == key {
		return
	}
	st.busy[name] = true
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.pin(s.ctx, &sv, key, spec, again)
		st.mu.Lock()
		delete(st.busy, name)
		if err != nil {
			st.failed[name] = failedPin{config: key, why: err.Error()}
		}
		st.mu.Unlock()
		if err != nil {
			s.log.Warn("pinning a server's package", "server", name, "err", err)
			s.notices.Publish(struct{}{}) // its server failed: the window says why
			return
		}
		if s.ctx.Err() == nil {
			s.reload()
		}
	}()
}

// pin resolves spec's tree with sv's npm (npmFor), installs it, and
// records it as sv's for the config key. With again, it installs that tree once more and records
// nothing: a tree whose lockfile changed is not installed.
func (s *Service) pin(ctx context.Context, sv *config.Server, key string, spec npmpin.Spec, again *npmpin.Pin) error {
	name := sv.Name
	if spec.Image {
		return s.pinImage(ctx, name, key, spec, again)
	}
	n := s.npmFor(ctx, sv)
	n.Scripts = s.scriptsIn(name) // scripts.go
	if again != nil {
		if err := n.Install(ctx, *again); err != nil {
			return err
		}
		// A tree with no program to run would be installed and
		// reloaded again and again: its server fails instead.
		_, _, err := again.Program()
		return err
	}
	p, err := n.ResolveInstall(ctx, filepath.Join(s.packagesDir(), sandbox.FolderName(name)), spec)
	if err != nil {
		return err
	}
	if _, _, err := p.Program(); err != nil {
		return err
	}
	withOrigin(ctx, n, &p) // provenance.go
	return s.packageStore().Change(ctx, func(all map[string]npmpin.Record) error {
		all[name] = npmpin.Record{Config: key, Current: p, At: s.opts.Now().UTC()}
		return nil
	})
}

// pinImage resolves the image spec names to its digest and records it as
// name's for the config key. With again, there is nothing to install:
// docker pulls the image by its digest when the server starts.
func (s *Service) pinImage(ctx context.Context, name, key string, spec npmpin.Spec, again *npmpin.Pin) error {
	if again != nil {
		return again.Check()
	}
	img, err := s.images(spec.Podman).Resolve(ctx, npmpin.ImageOf(spec))
	if err != nil {
		return err
	}
	p := npmpin.ImagePin(spec, img)
	return s.packageStore().Change(ctx, func(all map[string]npmpin.Record) error {
		all[name] = npmpin.Record{Config: key, Current: p, At: s.opts.Now().UTC()}
		return nil
	})
}

// checkOne asks cur's registry what its request gives now: nil when
// the same tree (or image); otherwise the newer one, installed beside
// cur (an image is not pulled: docker pulls it when it runs), and what
// changes.
func (s *Service) checkOne(ctx context.Context, n *npmpin.NPM, name string, cur *npmpin.Pin) (*npmpin.Pin, *npmpin.Review, error) {
	if cur.Image != nil {
		img, err := s.images(cur.Spec.Podman).Resolve(ctx, npmpin.ImageOf(cur.Spec))
		if err != nil || img.Hex() == cur.Lock.Hash {
			return nil, nil, err
		}
		next := npmpin.ImagePin(cur.Spec, img)
		r := npmpin.ImageReview(*cur, next)
		return &next, &r, nil
	}
	n.Scripts = s.scriptsIn(name) // scripts.go
	withOrigin(ctx, n, cur)       // provenance.go: when not asked, or not answered, before
	next, err := n.Resolve(ctx, filepath.Dir(cur.Dir), cur.Spec)
	if err != nil || next.Lock.Hash == cur.Lock.Hash {
		return nil, nil, err
	}
	withOrigin(ctx, n, &next)
	if err := n.Install(ctx, next); err != nil {
		return nil, nil, err
	}
	r, err := npmpin.Compare(*cur, next)
	if err != nil {
		return nil, nil, err
	}
	return &next, &r, nil
}

// Packages says what each pinned server runs, and the updates the last
// check found.
func (s *Service) Packages(ctx context.Context) ([]PackageView, error) {
	if s.opts.Packages == nil {
		return nil, nil
	}
	recs, err := s.packageStore().Load()
	if err != nil {
		return nil, wrapError(err)
	}
	var out []PackageView
	trials, _ := s.loadTrials() // unreadable: not tried
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		r := recs[name]
		v := PackageView{Server: name, Facts: s.npmOf(ctx, name).Facts(ctx, r.Current), Update: r.Review, Checked: r.Checked, Trial: trialOf(trials, name, r)}
		v.Words, v.HiddenWords = v.Facts.Words(s.opts.Now()), v.Facts.HiddenWords()
		if r.Previous != nil {
			v.Back = r.Previous.Version()
		}
		out = append(out, v)
	}
	return out, nil
}

// CheckPackages asks each pinned server's registry what is new: it
// resolves the server's request again, and when that gives another tree it
// installs it beside the one that runs and reviews the change. Nothing of
// it runs until the person updates.
func (s *Service) CheckPackages(ctx context.Context) ([]PackageView, error) {
	if s.opts.Packages == nil {
		return nil, nil
	}
	recs, err := s.packageStore().Load()
	if err != nil {
		return nil, wrapError(err)
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		cur := recs[name].Current
		next, review, err := s.checkOne(ctx, s.npmOf(ctx, name), name, &cur)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", sanitize.Line(name), err))
			continue
		}
		err = s.packageStore().Change(ctx, func(all map[string]npmpin.Record) error {
			r, ok := all[name]
			if !ok || r.Current.Lock.Hash != cur.Lock.Hash {
				return nil // updated or removed meanwhile
			}
			r.Checked, r.Candidate, r.Review = s.opts.Now().UTC(), nil, nil
			if r.Current.Origin == nil || r.Current.Origin.Unchecked != "" {
				r.Current.Origin = cur.Origin // provenance.go
			}
			if review != nil {
				r.Candidate, r.Review = next, review
			}
			all[name] = r
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
		s.prunePackages(name)
	}
	if err := s.tryUpdates(ctx); err != nil {
		errs = append(errs, err)
	}
	s.notices.Publish(struct{}{})
	views, err := s.Packages(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	return views, wrapError(errors.Join(errs...))
}

// UpdatePackage runs the newer tree the last check found for the server
// called name, as reviewed; the tree that ran stays, to go back to. With
// back, it goes back to the tree that ran before the last update. With a
// tree, it runs that tree only: a check since the person read the review
// may have found another, which the person has not read.
func (s *Service) UpdatePackage(ctx context.Context, req PackageUpdate) (PackageView, error) {
	name, back := req.Name, req.Back
	if s.opts.Packages == nil {
		return PackageView{}, newError(NotAllowed, "packages are not pinned here")
	}
	// An update runs only as its trial showed it (updaterun.go).
	plan, err := s.planSwitch(ctx, req)
	if err != nil {
		return PackageView{}, err
	}
	err = s.packageStore().Change(ctx, func(all map[string]npmpin.Record) error {
		r, ok := all[name]
		if !ok {
			return newError(NotFound, "%s runs no pinned package", sanitize.Line(name))
		}
		to := r.Candidate
		if back {
			to = r.Previous
		}
		switch {
		case to == nil && back:
			return newError(NotAllowed, "%s has no earlier version to go back to", sanitize.Line(name))
		case to == nil:
			return newError(NotAllowed, "%s has no update (mcptray updates asks the registry)", sanitize.Line(name))
		}
		if req.Tree != "" && !sameTree(req.Tree, to.Lock.Hash) {
			return newError(NotAllowed, "%s's update is no longer the one you read: a check found %s %s since; read its review first", sanitize.Line(name), to.Spec.Package, to.Version())
		}
		if err := to.Check(); err != nil {
			return err
		}
		if !to.Installed() {
			return fmt.Errorf("%s's tree %s is not installed", to.Spec.Package, to.Short())
		}
		if err := plan.switching(r, *to); err != nil {
			return err
		}
		was := r.Current
		r.Current, r.Previous, r.Candidate, r.Review, r.At = *to, &was, nil, nil, s.opts.Now().UTC()
		all[name] = r
		return nil
	})
	if err != nil {
		return PackageView{}, wrapError(err)
	}
	if err := s.switched(ctx, plan); err != nil {
		return PackageView{}, err
	}
	s.prunePackages(name)
	views, err := s.Packages(ctx)
	if err != nil {
		return PackageView{}, err
	}
	for _, v := range views {
		if v.Server == name {
			return v, nil
		}
	}
	return PackageView{}, newError(NotFound, "%s runs no pinned package", sanitize.Line(name))
}

// sameTree reports whether tree, as the person was shown it (the whole
// hash, or its first 12 characters or more), names the lockfile hash.
func sameTree(tree, hash string) bool {
	return len(tree) >= 12 && strings.HasPrefix(hash, strings.ToLower(tree))
}

// prunePackages removes the trees of the server called name that its
// record holds no more.
func (s *Service) prunePackages(name string) {
	rec, ok, err := s.packageStore().Get(name)
	if err == nil && ok && rec.Current.Image == nil { // docker keeps the images
		err = rec.Prune(filepath.Join(s.packagesDir(), sandbox.FolderName(name)))
	}
	if err != nil {
		s.log.Info("removing a server's old package trees", "server", name, "err", err)
	}
}

// checkPackagesDaily asks the registries what is new every
// PackageOptions.Every, until ctx ends.
func (s *Service) checkPackagesDaily(ctx context.Context) {
	t := time.NewTicker(s.opts.Packages.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.CheckPackages(ctx); err != nil {
				s.log.Info("checking pinned packages for updates", "err", err)
			}
		}
	}
}

// packageReasons says, of a server held while its package is pinned, why:
// being installed, or what failed; and counts the updates found.
func (s *Service) packageReasons(snap *Snapshot) {
	if s.opts.Packages == nil {
		return
	}
	if recs, err := s.packageStore().Load(); err == nil {
		s.updatesSeen(snap, recs)
		for _, r := range recs {
			if r.Candidate != nil {
				snap.Updates++
			}
		}
	}
	st := &s.packages
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if sv.State != conn.AwaitingApproval || sv.Approval == config.Undecided {
			continue
		}
		if st.busy[sv.Name] && ocipin.IsContainer(sv.Command) {
			sv.Reason = "asking the registry for its image's digest, to pin it"
			continue
		}
		if st.busy[sv.Name] {
			sv.Reason = "installing its package, pinned by its content (npm without install scripts; those it declares run after, in its sandbox)"
			continue
		}
		if f, ok := st.failed[sv.Name]; ok {
			what := "package"
			if ocipin.IsContainer(sv.Command) {
				what = "image"
			}
			sv.State, sv.Reason = conn.Failed, "its "+what+" could not be pinned: "+f.why
			// Not approve: a server of the person's own needs none, and
			// one approved already would only be asked again. Retry
			// pins it again (Retry).
			sv.Fix = Fix{Action: RetryAction, Label: "Retry"}
		}
	}
}
