package service

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcptray/mcptray/core/bundle"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// Servers from MCP Bundles: the service opens the bundle itself (a front
// end only shows what it says), unpacks it into its folder under
// BundlesDir, read-only to the server, writes the command its manifest
// makes into mcptray's config with where it came from (starting in that
// folder, which its sandbox lets it read), lets its sandbox read the
// folders and files its settings name (and change those the person said
// it may), keeps its sensitive settings in
// the keychain, and pins the tools and prompts it declares before it
// first runs (pins.PinDeclared). Installing a bundle of the same name
// again updates it; removing it deletes its folder with its secrets.

// BundleRequest asks to install a server from an MCP Bundle.
type BundleRequest struct {
	// File is the .mcpb file; or Registry is the MCP Registry's entry
	// whose MCP Bundle package (registryType mcpb) is downloaded over
	// https and checked against its fileSha256 first. SHA256, when given,
	// is the digest of the file the person was shown: a file that changed
	// since is refused.
	File     string                 `json:"file,omitempty"`
	Registry *registry.ServerDetail `json:"registry,omitempty"`
	SHA256   string                 `json:"sha256,omitempty"`
	// Name is the server's name in mcptray; "" is the bundle's own.
	Name string `json:"name,omitempty"`
	// Values are its settings (the manifest's user_config) by key,
	// several for one that takes several; Secrets its sensitive ones,
	// which go to the keychain and nowhere else.
	Values  map[string][]string `json:"values,omitempty"`
	Secrets map[string]string   `json:"secrets,omitempty"`
	// Write are the folder and file settings whose paths the server may
	// change, not only read.
	Write []string `json:"write,omitempty"`
	// Preview says what installing would do, and does nothing.
	Preview bool `json:"preview,omitempty"`
}

// BundleResult is what installing a bundle did, or would do.
type BundleResult struct {
	// Name is the server's name in mcptray; Bundle where it came from.
	Name   string        `json:"name"`
	Bundle config.Bundle `json:"bundle"`
	// Title, Author and Description are the manifest's.
	Title       string `json:"title"`
	Author      string `json:"author"`
	Description string `json:"description"`
	// What runs: the exact command, its arguments and folder, the names
	// of its environment variables and of the secrets it is given.
	Command     string   `json:"command"`
	Args        []string `json:"args,omitempty"`
	Cwd         string   `json:"cwd"`
	EnvNames    []string `json:"envNames,omitempty"`
	SecretNames []string `json:"secretNames,omitempty"`
	// Read and Write are the folders and files its settings name, which
	// its sandbox gives it beyond the default (its own files, the folder
	// it starts in, it reads anyway).
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	// Settings are what it asks for, in the manifest's order; Missing the
	// required ones a Preview was not given (it then says what the bundle
	// is, asks for, declares and lacks, but not what would run).
	Settings []BundleSetting `json:"settings,omitempty"`
	Missing  []string        `json:"missing,omitempty"`
	// Tools and Prompts are what it says it offers, each with what the
	// reading for hidden instructions found; ToolsGenerated and
	// PromptsGenerated say it offers more that it makes up as it runs.
	Tools            []Declared `json:"tools,omitempty"`
	Prompts          []Declared `json:"prompts,omitempty"`
	ToolsGenerated   bool       `json:"toolsGenerated,omitempty"`
	PromptsGenerated bool       `json:"promptsGenerated,omitempty"`
	// Needs says what it needs that this computer lacks, and what else a
	// person should know before installing it (a registry entry that
	// lists another version than the bundle says it is), each in words
	// that begin "it ".
	Needs []string `json:"needs,omitempty"`
	// Update, when it replaces an installed version, says from which and
	// what changed in what it declares.
	Update *BundleUpdate `json:"update,omitempty"`
	// File is the config file it was written to; Server the server as it
	// is now (both only once installed).
	File   string  `json:"file,omitempty"`
	Server *Server `json:"server,omitempty"`
}

// BundleSetting is one setting a bundle asks for (its manifest's
// user_config).
type BundleSetting struct {
	Key         string `json:"key"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// Type is string, number, boolean, directory or file.
	Type      string `json:"type"`
	Required  bool   `json:"required,omitempty"`
	Sensitive bool   `json:"sensitive,omitempty"`
	Multiple  bool   `json:"multiple,omitempty"`
	// Default says it has a default in the manifest, which it gets
	// unless given another value; DefaultValue is that default as the
	// server would get it here (several one a line), "" for a sensitive
	// one or one whose default is a folder this computer lacks.
	Default      bool   `json:"default,omitempty"`
	DefaultValue string `json:"defaultValue,omitempty"`
	// Kept says a sensitive one's value is in the keychain already, from
	// the version installed before.
	Kept bool `json:"kept,omitempty"`
}

// Declared is a tool or prompt a bundle says it offers.
type Declared struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Flags       []pins.Flag `json:"flags,omitempty"`
}

// BundleUpdate says what installing a bundle over its older version
// changes.
type BundleUpdate struct {
	From    string   `json:"from"`
	Changes []string `json:"changes,omitempty"`
}

// InstallBundle installs the server of the MCP Bundle req.File, or with
// Preview says what that would do. When it fails, nothing has changed.
func (s *Service) InstallBundle(ctx context.Context, req BundleRequest) (BundleResult, error) {
	if err := s.checkOpen(); err != nil {
		return BundleResult{}, err
	}
	file, source, from, pkg, err := s.bundleFile(ctx, req)
	if err != nil {
		return BundleResult{}, err
	}
	b, err := bundle.Open(file, bundle.Options{})
	if err != nil {
		if bundle.IsRefused(err) {
			return BundleResult{}, newError(Invalid, "%s", sanitize.Line(err.Error()))
		}
		return BundleResult{}, newError(NotFound, "%s", sanitize.Line(err.Error()))
	}
	if req.SHA256 != "" && req.SHA256 != b.SHA256 {
		return BundleResult{}, newError(Invalid, "%s changed since it was shown to you; install it again to see what it is now", sanitize.Line(from))
	}
	m := &b.Manifest
	name := cmp.Or(req.Name, m.Name)
	if err := checkName(name); err != nil {
		return BundleResult{}, err
	}
	if other := m.OtherPlatforms(runtime.GOOS); other != "" {
		return BundleResult{}, newError(NotAllowed, "%s cannot run here: %s", sanitize.Line(m.Title()), other)
	}
	userFile := s.opts.Paths.UserFile()
	u, err := config.ReadUserFile(userFile)
	if err != nil {
		return BundleResult{}, wrapError(err)
	}
	var old *config.Server
	if raw, ok := u.MCPServers[name]; ok {
		sv, err := config.ParseServer(name, raw, config.Source{Scope: config.User, App: "mcptray", File: userFile}, config.Vars{Lookup: s.opts.Lookup, Home: s.opts.Paths.Home})
		if err != nil || sv.Bundle == nil || sv.Bundle.Name != m.Name {
			return BundleResult{}, newError(Invalid, "you already have a server called %q that is not this bundle; remove it first, or install this one under another name", sanitize.Line(name))
		}
		old = &sv
	}
	if err := folderTaken(u, name); err != nil {
		return BundleResult{}, err
	}

	dir := filepath.Join(s.opts.Paths.BundlesDir(), sandbox.FolderName(name))
	res := BundleResult{Name: name, Title: m.Title(), Author: m.Author.Name, Description: m.Description,
		ToolsGenerated: m.ToolsGenerated, PromptsGenerated: m.PromptsGenerated,
		Bundle: config.Bundle{Name: m.Name, Version: m.ServerVersion, Source: source, From: from,
			SHA256: b.SHA256, Signature: b.Signature.String()}}
	var kept []string
	if old != nil {
		kept = old.SecretNames()
	}
	places := bundle.PlacesIn(s.opts.Paths.Home)
	defaults, _ := m.Settings(nil, places) // each with its default, when it has one here
	for _, k := range m.UserConfigOrder {
		uc := m.UserConfig[k]
		st := BundleSetting{Key: k, Title: uc.Title, Description: uc.Description, Type: uc.Type,
			Required: uc.Required, Sensitive: uc.Sensitive, Multiple: uc.Multiple, Default: len(uc.Default) > 0 && string(uc.Default) != "null",
			Kept: uc.Sensitive && slices.Contains(kept, secretName(k))}
		if d, ok := bundle.Find(defaults, k); ok && !uc.Sensitive {
			st.DefaultValue = strings.Join(d.Values, "\n")
		}
		res.Settings = append(res.Settings, st)
	}
	// What it declares and lacks does not depend on its settings: a form
	// shows it while the person fills them in.
	toolDefs, promptDefs := declaredDefs(m)
	res.Tools, res.Prompts = declaredOf(toolDefs), declaredOf(promptDefs)
	res.Needs = m.Needs(ctx, bundle.ThisComputer(s.runtimeVersion))
	if pkg != nil {
		// The package's version, or when it lists none (a bundle's may
		// not), the entry's own.
		if n := versionNote(cmp.Or(pkg.Version, req.Registry.Version), m.ServerVersion); n != "" {
			res.Needs = append(res.Needs, n)
		}
	}
	if old != nil {
		res.Update = &BundleUpdate{From: old.Bundle.Version}
		if prev, err := bundle.ReadManifest(dir); err == nil {
			res.Update.Changes = declaredChanges(&prev, m)
		}
	}
	settings, secretNames, missing, err := s.bundleSettings(m, req, kept)
	if len(missing) > 0 && req.Preview {
		res.Missing = missing
		return res, nil
	}
	if err != nil {
		return BundleResult{}, err
	}
	run, err := m.Command(dir, runtime.GOOS, places, settings, func(key string) string { return config.SecretRef(secretNames[key]) })
	if err != nil {
		return BundleResult{}, newError(Invalid, "%s: %s", sanitize.Line(m.Title()), sanitize.Line(err.Error()))
	}
	res.Command, res.Args, res.Cwd = run.Command, run.Args, run.Cwd
	res.EnvNames = slices.Sorted(maps.Keys(run.Env))
	// Its own files it reads as the folder it starts in (sandbox.Default),
	// not as a grant, which the flow guard would count as your data.
	for _, st := range settings {
		if !st.Path() || st.Config.Sensitive {
			continue
		}
		if slices.Contains(req.Write, st.Key) {
			res.Write = append(res.Write, st.Values...)
		} else {
			res.Read = append(res.Read, st.Values...)
		}
	}
	for _, k := range req.Write {
		if st, ok := bundle.Find(settings, k); !ok || !st.Path() {
			return BundleResult{}, newError(Invalid, "%s is not a folder or file setting of %s; only those can be made writable", sanitize.Line(k), sanitize.Line(m.Title()))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(secretNames)) {
		if slices.ContainsFunc(settings, func(st bundle.Setting) bool { return st.Key == k }) {
			res.SecretNames = append(res.SecretNames, secretNames[k])
		}
	}
	if req.Preview {
		return res, nil
	}
	res, err = s.installBundle(ctx, b, req, res, run, old, toolDefs, promptDefs)
	if err == nil && pkg != nil {
		// Unpacked into its folder: the download is not needed again.
		_ = registry.RemoveDownload(s.opts.Paths.DownloadsDir(), pkg)
	}
	return res, err
}

// versionNote says, in a Needs's words, that the registry lists a version
// (listed) of a bundle whose manifest says another (own); "" when they
// agree or the registry lists none. Not a refusal: the file's SHA-256,
// not its version, is what the registry pins.
func versionNote(listed, own string) string {
	norm := func(v string) string { return strings.TrimPrefix(strings.TrimSpace(v), "v") }
	if norm(listed) == "" || norm(listed) == norm(own) {
		return ""
	}
	if strings.TrimSpace(own) == "" {
		return fmt.Sprintf("it says no version of its own; the registry lists version %s (the file is the one the registry lists: its SHA-256 matches)", shortWords(listed))
	}
	return fmt.Sprintf("it says it is version %s; the registry lists version %s (the file is the one the registry lists: its SHA-256 matches)", shortWords(own), shortWords(listed))
}

// shortWords is s on one line, cut after 64 bytes.
func shortWords(s string) string {
	s = sanitize.Line(s)
	if len(s) <= 64 {
		return s
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// bundleFile is the bundle file req names, where it came from ("file" or
// "registry") and that file's path or the registry's name for it, and
// the registry's package when it came from there: an entry's MCP Bundle
// is downloaded over https into DownloadsDir (or the download a preview
// left there used again), and refused in words unless its bytes are what
// the registry says.
func (s *Service) bundleFile(ctx context.Context, req BundleRequest) (file, source, from string, pkg *registry.Package, err error) {
	switch {
	case req.Registry != nil && req.File != "":
		return "", "", "", nil, newError(Invalid, "give a bundle's file or its registry entry, not both")
	case req.Registry == nil && req.File == "":
		return "", "", "", nil, newError(Invalid, "name the bundle's file, or its registry entry")
	case req.Registry == nil:
		return req.File, "file", absPath(req.File), nil, nil
	}
	p, err := registry.BundlePackage(req.Registry)
	if err != nil {
		return "", "", "", nil, newError(Invalid, "%s", sanitize.Line(err.Error()))
	}
	file, err = registry.FetchBundle(ctx, s.opts.HTTP, p, s.opts.Paths.DownloadsDir(), bundle.DefaultLimits.FileSize)
	if err != nil {
		return "", "", "", nil, newError(Other, "%s", sanitize.Line(err.Error()))
	}
	return file, "registry", req.Registry.Name, p, nil
}

// installBundle does what InstallBundle said it would: the files, the
// pins, then the config and the keychain in one change of the file.
func (s *Service) installBundle(ctx context.Context, b *bundle.Bundle, req BundleRequest, res BundleResult, run bundle.Run,
	old *config.Server, toolDefs, promptDefs []pins.Def) (BundleResult, error) {
	name, dir, file := res.Name, res.Cwd, s.opts.Paths.UserFile()
	entry := map[string]any{"command": run.Command, "cwd": run.Cwd, entryKeyName: config.BundleEntry(res.Bundle)}
	if len(run.Args) > 0 {
		entry["args"] = run.Args
	}
	if len(run.Env) > 0 {
		entry["env"] = run.Env
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return BundleResult{}, err
	}
	sv, err := config.ParseServer(name, raw, config.Source{Scope: config.User, App: "mcptray", File: file}, config.Vars{Lookup: s.opts.Lookup, Home: s.opts.Paths.Home})
	if err != nil {
		return BundleResult{}, newError(Invalid, "%s %v", sanitize.Line(name), err)
	}
	if err := b.Unpack(dir); err != nil {
		return BundleResult{}, wrapError(err)
	}
	if old == nil {
		// Before the server can first run: what it offers then is held
		// unless it is what it declared.
		if err := s.trust.Policy().PinDeclared(name, toolDefs, promptDefs); err != nil {
			_ = os.RemoveAll(dir)
			return BundleResult{}, wrapError(fmt.Errorf("pinning the tools it declares: %w", err))
		}
	}
	undo := func() {}
	err = config.ModifyUserFile(file, func(u *config.UserFile) error {
		if _, ok := u.MCPServers[name]; ok != (old != nil) {
			return newError(Invalid, "a server called %q came or went while it was being installed; install it again", sanitize.Line(name))
		}
		if len(req.Secrets) > 0 {
			stored, err := s.putSecrets(ctx, &sv, secretsByName(req.Secrets))
			if err != nil {
				return err
			}
			undo = stored
		}
		u.MCPServers[name] = raw
		// It gets its own files and what its settings name, and nothing
		// of an older version's or of another server of the same name.
		return u.ChangeSandbox(name, func(st *sandbox.Settings) {
			*st = sandbox.Settings{Read: res.Read, Write: res.Write}
		})
	})
	if err != nil {
		undo()
		if old == nil {
			_ = os.RemoveAll(dir)
		}
		return BundleResult{}, wrapError(err)
	}
	if names := sv.SecretNames(); len(names) > 0 {
		s.rememberSecrets(config.User, file, name, names)
	}
	s.reload()
	res.File = file
	fallback := Server{Name: name, ConfigName: name, Scope: config.User, Transport: sv.Transport, Command: sv.Command,
		Args: sv.Args, Cwd: sv.Cwd, EnvNames: sv.EnvNames(), Bundle: &res.Bundle}
	got, _ := s.server(ctx, name, fallback)
	res.Server = &got
	return res, nil
}

// entryKeyName is mcptray's own key in a server's entry.
const entryKeyName = "mcptray"

// bundleSettings checks the person's settings against the manifest's,
// and names the keychain's secret for each sensitive one. Updating, a
// sensitive setting not given again keeps the secret kept before.
func (s *Service) bundleSettings(m *bundle.Manifest, req BundleRequest, kept []string) (settings []bundle.Setting, secretNames map[string]string, missing []string, err error) {
	secretNames = map[string]string{}
	taken := map[string]string{}
	for _, k := range m.UserConfigOrder {
		if !m.UserConfig[k].Sensitive {
			continue
		}
		n := secretName(k)
		if other, ok := taken[n]; ok {
			return nil, nil, nil, newError(Invalid, "%s's settings %s and %s would be kept in your keychain under one name", sanitize.Line(m.Title()), other, k)
		}
		taken[n], secretNames[k] = k, n
	}
	given := map[string][]string{}
	for k, v := range req.Values {
		if m.UserConfig[k].Sensitive {
			return nil, nil, nil, newError(Invalid, "%s is a secret: it is read from stdin, or asked for, never from the command line", sanitize.Line(k))
		}
		given[k] = v
	}
	for k, n := range secretNames {
		if v, ok := req.Secrets[k]; ok {
			if err := checkSecretValue(k, v); err != nil {
				return nil, nil, nil, err
			}
			given[k] = []string{"secret"} // its value is the keychain's; Command writes the reference
		} else if slices.Contains(kept, n) {
			given[k] = []string{"kept"}
		}
	}
	for k := range req.Secrets {
		if _, ok := secretNames[k]; !ok {
			return nil, nil, nil, newError(Invalid, "%s asks for no secret called %s", sanitize.Line(m.Title()), sanitize.Line(k))
		}
	}
	settings, err = m.Settings(given, bundle.PlacesIn(s.opts.Paths.Home))
	if missing, ok := errors.AsType[*bundle.MissingError](err); ok {
		var words []string
		for _, k := range missing.Keys {
			uc := m.UserConfig[k]
			words = append(words, fmt.Sprintf("%s (%s: %s)", k, sanitize.Line(uc.Title), sanitize.Line(uc.Description)))
		}
		return nil, nil, missing.Keys, newError(Invalid, "%s needs %s; give each a value", sanitize.Line(m.Title()), strings.Join(words, ", "))
	}
	if err != nil {
		return nil, nil, nil, newError(Invalid, "%s", sanitize.Line(err.Error()))
	}
	return settings, secretNames, nil, nil
}

// secretName is the keychain's name for the sensitive setting key: its
// letters and digits in capitals, anything else an underscore.
func secretName(key string) string {
	n := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_':
			return r
		}
		return '_'
	}, key)
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "_" + n
	}
	return n
}

// secretsByName are the person's secrets by their keychain names.
func secretsByName(secrets map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range secrets {
		out[secretName(k)] = v
	}
	return out
}

// declaredDefs are the tools and prompts m declares, as pins keeps them.
func declaredDefs(m *bundle.Manifest) (toolDefs, promptDefs []pins.Def) {
	for _, t := range m.Tools {
		toolDefs = append(toolDefs, pins.Def{Name: t.Name, Description: t.Description})
	}
	for _, p := range m.Prompts {
		promptDefs = append(promptDefs, pins.Def{Name: p.Name, Description: p.Description})
	}
	return toolDefs, promptDefs
}

// declaredOf reads each definition for hidden instructions.
func declaredOf(defs []pins.Def) []Declared {
	var out []Declared
	for _, d := range defs {
		out = append(out, Declared{Name: d.Name, Description: d.Description, Flags: pins.Scan(d, nil)})
	}
	return out
}

// declaredChanges says in words what changed between two versions'
// declared tools and prompts.
func declaredChanges(prev, next *bundle.Manifest) []string {
	var out []string
	out = append(out, changesOf("tool", toolMap(prev), toolMap(next))...)
	out = append(out, changesOf("prompt", promptMap(prev), promptMap(next))...)
	return out
}

func toolMap(m *bundle.Manifest) map[string]string {
	out := map[string]string{}
	for _, t := range m.Tools {
		out[t.Name] = t.Description
	}
	return out
}

func promptMap(m *bundle.Manifest) map[string]string {
	out := map[string]string{}
	for _, p := range m.Prompts {
		out[p.Name] = p.Description
	}
	return out
}

func changesOf(kind string, prev, next map[string]string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(next)) {
		d, was := prev[n]
		switch {
		case !was:
			out = append(out, fmt.Sprintf("new %s %s", kind, sanitize.Line(n)))
		case d != next[n]:
			out = append(out, fmt.Sprintf("%s %s says something else now", kind, sanitize.Line(n)))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := next[n]; !ok {
			out = append(out, fmt.Sprintf("%s %s is gone", kind, sanitize.Line(n)))
		}
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// removeBundle deletes the files of a removed server that came from a
// bundle, once it is gone from before's config.
func (s *Service) removeBundle(before *config.Set, name string) error {
	for _, e := range append(slices.Clone(before.Servers), before.Suppressed...) {
		if e.Scope == config.User && e.ConfigName == name && e.Bundle != nil {
			if bundleFolderShared(before, name) {
				return nil // its folder is another bundle's
			}
			dir := filepath.Join(s.opts.Paths.BundlesDir(), sandbox.FolderName(name))
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("its files are still in %s (%v); remove that folder", dir, err)
			}
			return nil
		}
	}
	return nil
}
