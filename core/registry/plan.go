package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/core/config"
)

// runtimes are the package types mcptray can run, with the program that
// runs each.
var runtimes = map[string]string{
	"npm":   "npx",
	"pypi":  "uvx",
	"oci":   "docker",
	"nuget": "dnx",
}

// Where a Field's value goes.
const (
	InEnv      = "environment variable"
	InHeader   = "header"
	InURL      = "address variable"
	InArgument = "argument"
	InVariable = "variable"
)

// Field is one value a server asks the person for.
type Field struct {
	// Key is how the person names it (--set KEY=…): the variable's or
	// header's name, or the argument's name without dashes.
	Key string `json:"key"`
	// Where says what the value becomes (InEnv, InHeader…).
	Where       string   `json:"where"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Secret      bool     `json:"secret,omitempty"`
	Default     string   `json:"default,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	Format      string   `json:"format,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// Prefer says which way to run a server that offers both.
type Prefer string

// The ways to run a server.
const (
	// PreferAny takes the first package mcptray can run, else a remote.
	PreferAny Prefer = ""
	// PreferLocal takes a package only.
	PreferLocal Prefer = "local"
	// PreferRemote takes a remote only.
	PreferRemote Prefer = "remote"
)

// Plan is what installing an entry would do: the config entry written into
// mcptray's config and the secrets kept in the keychain. It is data: nothing
// runs until the person has seen it and the service has written it.
type Plan struct {
	// Registry is the server's registry name.
	Registry string `json:"registry"`
	Title    string `json:"title,omitempty"`
	Version  string `json:"version,omitempty"`
	// Remote is true for a server reached over the network.
	Remote bool `json:"remote"`
	// Runtime is the program that runs a local server (npx, uvx, docker,
	// dnx); "" for a remote one.
	Runtime string   `json:"runtime,omitempty"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Transport is the config's type for a remote: http or sse.
	Transport   string   `json:"transport,omitempty"`
	EnvNames    []string `json:"envNames,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"`
	// SecretNames are the names the secrets are kept under in the
	// keychain; the entry refers to each as ${secret:NAME}.
	SecretNames []string `json:"secretNames,omitempty"`
	// Fields are every value the entry may ask for.
	Fields []Field `json:"fields"`
	// Given are the values the person gave that went into the command's
	// arguments: a value typed for an argument, or typed for a variable in
	// an argument's fixed value (the variable's value alone, not the rest
	// of the argument, which the publisher wrote). Fixed values, defaults
	// and a value the same as its default (a form shows the default
	// filled in) are not among them, nor secrets. A local server installed
	// from the registry is given the folders and files these name, and
	// nothing else its command line names (sandbox.ArgGrants).
	Given []string `json:"given,omitempty"`
	// Defaults are the defaults that went into the command's arguments,
	// by the field's key: the publisher's values, which the person did
	// not change.
	Defaults map[string]string `json:"defaults,omitempty"`

	// Secrets are the secrets' values by name. Never shown, logged or
	// marshalled.
	Secrets map[string]string `json:"-"`

	env, headers map[string]string
}

// Entry returns the config entry to write ({"command": …} or {"url": …}).
func (p *Plan) Entry() json.RawMessage {
	e := map[string]any{}
	if p.Remote {
		e["type"] = p.Transport
		e["url"] = p.URL
		if len(p.headers) > 0 {
			e["headers"] = p.headers
		}
	} else {
		e["command"] = p.Command
		if len(p.Args) > 0 {
			e["args"] = p.Args
		}
		if len(p.env) > 0 {
			e["env"] = p.env
		}
	}
	b, _ := json.Marshal(e) // strings only
	return b
}

// Name suggests the name the server goes by in mcptray: the last part of
// its registry name ("weather" for "io.github.user/weather").
func (p *Plan) Name() string {
	n := path.Base(p.Registry)
	if n == "." || n == "/" || n == "" {
		return p.Registry
	}
	return n
}

// MissingError says which required values were not given.
type MissingError struct{ Fields []Field }

func (e *MissingError) Error() string {
	var keys []string
	for _, f := range e.Fields {
		keys = append(keys, f.Key)
	}
	return "it needs " + strings.Join(keys, ", ")
}

// Fields returns the values the entry's chosen way of running asks for.
func Fields(d *ServerDetail, prefer Prefer) ([]Field, error) {
	p, err := MakePlan(d, prefer, nil)
	var me *MissingError
	if err != nil && !errors.As(err, &me) {
		return nil, err
	}
	return p.Fields, nil
}

// MakePlan chooses how to run d (a package mcptray can run, or a remote, as
// prefer says) and fills in values, by Field.Key. It returns a
// *MissingError, with a Plan whose Fields are complete, when a required
// value is missing; and a plain-words error for an entry mcptray cannot
// install or a value that is not allowed.
func MakePlan(d *ServerDetail, prefer Prefer, values map[string]string) (*Plan, error) {
	b, err := newBuilder(d, values)
	if err != nil {
		return nil, err
	}
	pkg, why := choosePackage(d.Packages)
	switch {
	case len(d.Packages) == 0 && len(d.Remotes) == 0:
		return nil, fmt.Errorf("the registry entry for %s says neither how to run it nor where to reach it (no packages or remotes)", d.Name)
	case prefer == PreferRemote && len(d.Remotes) == 0:
		return nil, fmt.Errorf("%s has no remote version; it runs on this computer", d.Name)
	case prefer == PreferLocal && pkg == nil:
		if why == "" {
			why = "it has no package to run"
		}
		return nil, fmt.Errorf("%s cannot run on this computer: %s", d.Name, why)
	case prefer != PreferRemote && pkg != nil:
		b.local(pkg)
	case len(d.Remotes) > 0:
		b.remote(&d.Remotes[0])
	default:
		return nil, fmt.Errorf("mcptray cannot install %s: %s", d.Name, why)
	}
	return b.finish()
}

// newBuilder starts the plan of d.
func newBuilder(d *ServerDetail, values map[string]string) (*builder, error) {
	if d.Name == "" {
		return nil, errors.New("the registry entry has no name")
	}
	return &builder{values: values, plan: &Plan{Registry: d.Name, Title: d.Title, Version: d.Version,
		Secrets: map[string]string{}, env: map[string]string{}, headers: map[string]string{}}}, nil
}

// finish returns the plan built, or what was wrong or missing.
func (b *builder) finish() (*Plan, error) {
	if b.err != nil {
		return nil, b.err
	}
	p := b.plan
	p.EnvNames = sortedKeys(p.env)
	p.HeaderNames = sortedKeys(p.headers)
	p.SecretNames = sortedKeys(p.Secrets)
	if len(b.missing) > 0 {
		return p, &MissingError{Fields: b.missing}
	}
	return p, nil
}

// choosePackage returns the first package mcptray can run, or why none.
func choosePackage(pkgs []Package) (*Package, string) {
	var why string
	for i := range pkgs {
		p := &pkgs[i]
		reason := runnable(p)
		if reason == "" {
			return p, ""
		}
		if why == "" {
			why = reason
		}
	}
	return nil, why
}

// runnable says why mcptray cannot run p, or "".
func runnable(p *Package) string {
	rt, ok := runtimes[p.RegistryType]
	switch {
	case p.RegistryType == BundleType:
		if why := bundleProblem(p); why != "" {
			return why
		}
		return "its package is an MCP Bundle, which mcptray installs from its file (mcptray install NAME, or the window's catalogue), not as a command"
	case !ok:
		return fmt.Sprintf("its package is of type %q, which mcptray cannot install (it runs npm, pypi, oci and nuget packages)", p.RegistryType)
	case p.RuntimeHint != "" && p.RuntimeHint != rt:
		return fmt.Sprintf("its %s package asks for the runtime %q, which mcptray does not know (it runs %s packages with %s)", p.RegistryType, p.RuntimeHint, p.RegistryType, rt)
	case p.Identifier == "":
		return fmt.Sprintf("its %s package has no name", p.RegistryType)
	case p.Transport.Type != "" && p.Transport.Type != "stdio":
		return fmt.Sprintf("its %s package runs as a web server of its own (%s), which mcptray cannot start yet", p.RegistryType, p.Transport.Type)
	case strings.HasPrefix(p.Identifier, "-") || strings.ContainsAny(p.Identifier, " \t\n\r\x00"):
		return fmt.Sprintf("its package name %q is not a package name", p.Identifier)
	}
	return ""
}

// builder walks the chosen package or remote, listing its fields and
// building the plan from the values given.
type builder struct {
	values  map[string]string
	plan    *Plan
	missing []Field
	err     error
	// inArgs is set while command-line arguments are resolved: the values
	// given then are recorded (Plan.Given, Plan.Defaults).
	inArgs bool
}

func (b *builder) fail(format string, a ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, a...)
	}
}

func (b *builder) local(p *Package) {
	rt := runtimes[p.RegistryType]
	b.plan.Runtime, b.plan.Command = rt, rt
	envs := b.keyValues(p.EnvironmentVariables, InEnv)
	var args []string
	switch p.RegistryType {
	case "npm":
		args = append(args, "-y")
		args = append(args, b.arguments(p.RuntimeArguments)...)
		args = append(args, versioned(p.Identifier, "@", p.Version))
	case "pypi":
		// uv documents PKG@VERSION for an exact version (PKG==VERSION
		// only after --from).
		args = append(args, b.arguments(p.RuntimeArguments)...)
		args = append(args, versioned(p.Identifier, "@", p.Version))
	case "oci":
		args = append(args, "run", "-i", "--rm")
		args = append(args, b.arguments(p.RuntimeArguments)...)
		// docker passes a variable into the container by name only, so
		// no value (a secret, perhaps) is on its command line.
		for _, kv := range envs {
			args = append(args, "-e", kv[0])
		}
		args = append(args, versioned(p.Identifier, ":", p.Version))
	case "nuget":
		args = append(args, b.arguments(p.RuntimeArguments)...)
		args = append(args, versioned(p.Identifier, "@", p.Version), "--yes")
	}
	args = append(args, b.arguments(p.PackageArguments)...)
	b.plan.Args = args
	for _, kv := range envs {
		b.plan.env[kv[0]] = kv[1]
	}
}

func versioned(id, sep, version string) string {
	if version == "" || version == "latest" {
		return id
	}
	return id + sep + version
}

func (b *builder) remote(r *Remote) {
	b.plan.Remote = true
	switch r.Type {
	case "streamable-http", "http", "":
		b.plan.Transport = "http"
	case "sse":
		b.plan.Transport = "sse"
	default:
		b.fail("its remote is reached over %q, which mcptray does not speak (it speaks streamable-http and sse)", r.Type)
		return
	}
	u, secret, ok := b.template(r.URL, r.Variables, InURL)
	if secret {
		b.fail("its address holds a secret variable, which mcptray would have to write into its config; mcptray does not install it")
		return
	}
	if ok {
		if strings.Contains(u, "{") {
			b.fail("its address %q has a {variable} the entry does not describe", r.URL)
			return
		}
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" || pu.User != nil {
			b.fail("its address %q is not an http or https URL", u)
			return
		}
	}
	b.plan.URL = u
	for _, kv := range b.keyValues(r.Headers, InHeader) {
		b.plan.headers[kv[0]] = kv[1]
	}
}

// keyValues resolves environment variables or headers into name, value
// pairs; those without a value are left out.
func (b *builder) keyValues(list []KeyValueInput, where string) [][2]string {
	var out [][2]string
	for _, kv := range list {
		if kv.Name == "" {
			b.fail("one of its %ss has no name", where)
			continue
		}
		if v, ok := b.input(kv.Name, where, kv.Input); ok && v != "" {
			out = append(out, [2]string{kv.Name, v})
		}
	}
	return out
}

// arguments resolves command-line arguments; optional ones without a value
// are left out.
func (b *builder) arguments(list []Argument) []string {
	b.inArgs = true
	defer func() { b.inArgs = false }()
	var out []string
	for i, a := range list {
		key := a.ValueHint
		if a.Type == "named" {
			key = strings.TrimLeft(a.Name, "-")
			if key == "" || strings.ContainsAny(a.Name, " \t\n\r\x00") {
				b.fail("one of its named arguments has no usable name (%q)", a.Name)
				continue
			}
		}
		if key == "" {
			key = fmt.Sprintf("argument %d", i+1)
		}
		v, ok := b.input(key, InArgument, a.Input)
		if !ok || (v == "" && !a.IsRequired) {
			if a.Type == "named" && a.Value == "" && a.Default == "" && len(a.Variables) == 0 && a.IsRequired {
				out = append(out, a.Name) // a flag on its own
			}
			continue
		}
		if a.Type == "named" {
			out = append(out, a.Name)
		}
		out = append(out, v)
	}
	return out
}

// input resolves one input: its fixed value (with {variables}), the value
// given, or its default. ok is false when it has none; a required one is
// then missing.
func (b *builder) input(key, where string, in Input) (string, bool) {
	if in.Value != "" {
		v, secret, ok := b.template(in.Value, in.Variables, InVariable)
		if ok && in.IsSecret && !secret {
			return b.secret(key, v), true
		}
		return v, ok
	}
	f := field(key, where, in)
	if b.checkField(f) {
		b.plan.Fields = append(b.plan.Fields, f)
	}
	v, ok := b.value(f)
	if !ok {
		return "", false
	}
	if f.Secret {
		return b.secret(key, v), true
	}
	return v, true
}

// template replaces {name} in s with each variable's value. secret says
// whether a secret variable went in (as a ${secret:…} reference).
func (b *builder) template(s string, vars map[string]Input, where string) (out string, secret, ok bool) {
	ok = true
	for _, name := range sortedKeys(vars) {
		if !strings.Contains(s, "{"+name+"}") {
			continue
		}
		in := vars[name]
		f := field(name, where, in)
		if b.checkField(f) {
			b.plan.Fields = append(b.plan.Fields, f)
		}
		v, has := b.value(f)
		if !has {
			ok = false
			continue
		}
		if f.Secret {
			v, secret = b.secret(name, v), true
		}
		s = strings.ReplaceAll(s, "{"+name+"}", v)
	}
	return s, secret, ok
}

func field(key, where string, in Input) Field {
	return Field{Key: key, Where: where, Description: in.Description, Required: in.IsRequired, Secret: in.IsSecret,
		Default: in.Default, Placeholder: in.Placeholder, Format: in.Format, Choices: in.Choices}
}

// checkField refuses a field whose choices make no sense, and reports
// whether it is new (a variable may be used twice).
func (b *builder) checkField(f Field) bool {
	for _, g := range b.plan.Fields {
		if g.Key == f.Key {
			return false
		}
	}
	if len(f.Choices) > 0 {
		for i, c := range f.Choices {
			if c == "" || slices.Contains(f.Choices[:i], c) {
				b.fail("its %s %s lists an empty or repeated choice", f.Where, f.Key)
			}
		}
		if f.Default != "" && !slices.Contains(f.Choices, f.Default) {
			b.fail("its %s %s has the default %q, which is not one of its choices (%s)", f.Where, f.Key, f.Default, strings.Join(f.Choices, ", "))
		}
		if f.Secret {
			b.fail("its %s %s is a secret with a list of choices, which cannot be", f.Where, f.Key)
		}
	}
	return true
}

// value returns the value given for f, or its default, after checking it.
func (b *builder) value(f Field) (string, bool) {
	v, given := b.values[f.Key]
	if !given || v == "" {
		if f.Default == "" {
			if f.Required && !slices.ContainsFunc(b.missing, func(g Field) bool { return g.Key == f.Key }) {
				b.missing = append(b.missing, f)
			}
			return "", false
		}
		v = f.Default
	}
	if err := checkValue(f, v); err != nil {
		b.fail("%s", err)
		return "", false
	}
	if b.inArgs && !f.Secret {
		b.record(f, v)
	}
	return v, true
}

// record notes whose value v, of an argument or of a variable in one, is:
// the person's (Plan.Given), or the publisher's default (Plan.Defaults). A
// value the same as the default is the default: a form shows it filled in,
// and the person may never have looked at it.
func (b *builder) record(f Field, v string) {
	if v == f.Default {
		if b.plan.Defaults == nil {
			b.plan.Defaults = map[string]string{}
		}
		b.plan.Defaults[f.Key] = v
		return
	}
	if !slices.Contains(b.plan.Given, v) {
		b.plan.Given = append(b.plan.Given, v)
	}
}

// CheckValue says why v cannot be f's value, or returns nil. Secret values
// are never quoted.
func CheckValue(f Field, v string) error { return checkValue(f, v) }

func checkValue(f Field, v string) error {
	show := fmt.Sprintf("%q", v)
	if f.Secret {
		show = "the value given"
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%s for %s has control characters or line breaks", show, f.Key)
	}
	if !f.Secret && strings.Contains(v, "${") {
		return fmt.Errorf("%s for %s holds ${, which mcptray's config would read as a variable", show, f.Key)
	}
	if f.Where == InURL && strings.ContainsFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r))
	}) {
		// Anything else could move the address to another host or path.
		return fmt.Errorf("%s for %s may hold only letters, digits, -, ., _ and ~, since it goes into the server's address", show, f.Key)
	}
	if len(f.Choices) > 0 && !slices.Contains(f.Choices, v) {
		return fmt.Errorf("%s is not one of the choices for %s: %s", show, f.Key, strings.Join(f.Choices, ", "))
	}
	switch f.Format {
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("%s for %s is not a number", show, f.Key)
		}
	case "boolean":
		if v != "true" && v != "false" {
			return fmt.Errorf("%s for %s is not true or false", show, f.Key)
		}
	}
	return nil
}

// secret keeps v among the plan's secrets and returns the reference the
// config holds instead.
func (b *builder) secret(key, v string) string {
	name := SecretName(key)
	if old, ok := b.plan.Secrets[name]; ok && old != v {
		b.fail("two of its secrets would both be kept as %s", name)
	}
	b.plan.Secrets[name] = v
	return config.SecretRef(name)
}

// SecretName is the name a secret is kept under for the field called key:
// key itself when it is a variable name, else key with every other
// character turned into _ ("X-API-Key" → "X_API_KEY").
func SecretName(key string) string {
	var sb strings.Builder
	for i, r := range key {
		switch {
		case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
			sb.WriteRune(r)
		case '0' <= r && r <= '9':
			if i == 0 {
				sb.WriteByte('_')
			}
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 {
		return "SECRET"
	}
	if strings.ContainsAny(key, "-. ") {
		return strings.ToUpper(sb.String())
	}
	return sb.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
