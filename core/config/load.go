package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailscale/hujson"

	"github.com/mcptray/mcptray/core/sandbox"
)

// Loader gathers servers from every scope into a Set.
type Loader struct {
	Paths Paths
	// Lookup reads the environment for ${VAR}; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
	// Approvals holds the person's decisions.
	Approvals *ApprovalStore
	// Dynamic servers were added at run time; set before the first Load.
	Dynamic []Server
	// Loaded, when set, is called after each Load (its own, its watcher's):
	// the service counts them.
	Loaded func()
	// Skipped, when set, is called when the watcher found every file as
	// the newest Load left it, and loaded nothing (tests).
	Skipped func()

	// seen is what the files looked like as the newest Load began
	// (fileStates): the watcher loads again only when they changed since.
	seen fileSeen
}

// NewLoader returns a Loader for paths using the process environment.
func NewLoader(paths Paths) *Loader {
	return &Loader{Paths: paths, Lookup: os.LookupEnv, Approvals: &ApprovalStore{Path: paths.ApprovalsFile()}}
}

// Load reads every scope now. Problems with files end up in Set.Problems;
// Load itself does not fail.
func (l *Loader) Load() *Set {
	if l.Loaded != nil {
		defer l.Loaded()
	}
	// Taken before anything is read: a file that changes during the load
	// looks changed afterwards, and is read again.
	before := fileStates(l.Files(l.seen.lastSet()))
	var set *Set
	defer func() { l.seen.remember(before, set) }()
	var all []Server
	var problems []Problem
	add := func(s []Server, p []Problem) {
		// mcptray's own gateway, written into an app's config by
		// mcptray connect, is not a server for mcptray to run: it would
		// be mcptray calling itself.
		s = slices.DeleteFunc(s, func(sv Server) bool { return IsGateway(&sv) })
		all, problems = append(all, s...), append(problems, p...)
	}

	var policy *Policy
	if doc, p := readSource(Source{Scope: Enterprise, App: "your organisation", File: l.Paths.Enterprise, Format: MCPServers}); p != nil {
		problems = append(problems, *p)
		policy = &Policy{File: l.Paths.Enterprise, broken: p.Message}
	} else if doc != nil {
		var pp []Problem
		policy, pp = doc.policy()
		problems = append(problems, pp...)
		add(doc.servers(l.vars(doc.src)))
	}

	user, p := readSource(Source{Scope: User, App: "mcptray", File: l.Paths.UserFile(), Format: MCPServers})
	var folders, turnedOff []string
	var rules GatewayRules
	var activity ActivitySettings
	var boxes map[string]sandbox.Settings
	var idp *IdentityProvider
	if p != nil {
		problems = append(problems, *p)
	} else if user != nil {
		add(user.servers(l.vars(user.src)))
		var fp *Problem
		folders, fp = user.folders()
		if fp != nil {
			problems = append(problems, *fp)
		}
		turnedOff, fp = user.turnedOff()
		if fp != nil {
			problems = append(problems, *fp)
		}
		rules, fp = user.gatewayRules()
		if fp != nil {
			problems = append(problems, *fp)
		}
		boxes, fp = user.sandboxSettings()
		if fp != nil {
			problems = append(problems, *fp)
		}
		activity, fp = user.activitySettings()
		if fp != nil {
			problems = append(problems, *fp)
		}
		idp, fp = user.identityProvider()
		if fp != nil {
			problems = append(problems, *fp)
		}
	}

	sources := l.Paths.ImportSources()
	for _, f := range folders {
		sources = append(sources, FolderSources(f)...)
	}
	sources = append(sources, l.pluginSources(&problems)...)
	for _, src := range sources {
		doc, p := readSource(src)
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		if doc != nil {
			add(doc.servers(l.vars(src)))
		}
	}
	for _, s := range l.Dynamic {
		s.Scope = Dynamic
		all = append(all, s)
	}

	decisions, err := l.Approvals.Load()
	if err != nil {
		// Everything that needs approval waits for it again; nothing runs
		// that the person has not approved.
		problems = append(problems, Problem{File: l.Approvals.Path, Message: err.Error()})
	}
	set = merge(all, policy, decisions)
	set.turnOff(turnedOff)
	set.IdentityProvider = idp
	set.Gateway = rules
	set.Activity = activity
	set.applySandbox(boxes)
	set.Problems = problems
	set.Folders = folders
	return set
}

func (l *Loader) vars(src Source) Vars {
	lookup := l.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return Vars{Lookup: lookup, Folder: src.Folder, Home: l.Paths.Home, PluginRoot: src.PluginRoot}
}

func (l *Loader) pluginSources(problems *[]Problem) []Source {
	entries, err := os.ReadDir(l.Paths.PluginsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		*problems = append(*problems, Problem{File: l.Paths.PluginsDir(), Message: "cannot be read: " + plainIOError(err)})
		return nil
	}
	var out []Source
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, pluginSource(filepath.Join(l.Paths.PluginsDir(), e.Name())))
		}
	}
	return out
}

// folders reads the "folders" list of mcptray's own config file.
func (d *document) folders() ([]string, *Problem) {
	v := member(d.root.Value.(*hujson.Object), "folders")
	if v == nil {
		return nil, nil
	}
	var folders []string
	if err := json.Unmarshal(d.data[v.StartOffset:v.EndOffset], &folders); err != nil {
		return nil, d.problem(v.StartOffset, "", `"folders" must be a list of folder paths`)
	}
	if i := slices.IndexFunc(folders, func(f string) bool { return !filepath.IsAbs(f) }); i >= 0 {
		// Before DeleteFunc, which shifts folders[i] away.
		p := d.problem(v.StartOffset, "", fmt.Sprintf("folder %q is not a full path and was skipped; use mcptray folders add", folders[i]))
		return slices.DeleteFunc(folders, func(f string) bool { return !filepath.IsAbs(f) }), p
	}
	return folders, nil
}

// turnedOff reads the "turnedOff" list of mcptray's own config file.
func (d *document) turnedOff() ([]string, *Problem) {
	v := member(d.root.Value.(*hujson.Object), "turnedOff")
	if v == nil {
		return nil, nil
	}
	var sigs []string
	if err := json.Unmarshal(d.data[v.StartOffset:v.EndOffset], &sigs); err != nil {
		return nil, d.problem(v.StartOffset, "", `"turnedOff" must be a list of server signatures`)
	}
	return sigs, nil
}

// turnOff marks the servers whose signature is in sigs as turned off.
func (s *Set) turnOff(sigs []string) {
	for i := range s.Servers {
		if slices.Contains(sigs, s.Servers[i].Signature) {
			s.Servers[i].Disabled = true
			s.Servers[i].TurnedOff = true
		}
	}
}

// Files lists every file whose change can change the Set, for a watcher.
func (l *Loader) Files(set *Set) []string {
	files := []string{l.Paths.Enterprise, l.Paths.UserFile(), l.Approvals.Path}
	for _, src := range l.Paths.ImportSources() {
		files = append(files, src.File)
	}
	var folders []string
	if set != nil {
		folders = set.Folders
	}
	for _, f := range folders {
		for _, src := range FolderSources(f) {
			files = append(files, src.File)
		}
	}
	var none []Problem
	files = append(files, l.Paths.PluginsDir())
	for _, src := range l.pluginSources(&none) {
		files = append(files, src.File)
	}
	return files
}
