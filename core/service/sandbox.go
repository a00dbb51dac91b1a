package service

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/transport"
)

// Sandbox is what a local server may do, for the approval dialog, the
// server's detail and mcptray sandbox.
type Sandbox struct {
	// Words says it: "It may read and change this project folder
	// (~/code/app) and reach api.github.com. Nothing else in your home."
	Words string `json:"words"`
	// Protection is how well this system enforces it, in words too
	// ("files protected, network not: this system's kernel is older than
	// 6.7").
	Protection sandbox.Level `json:"protection"`
	// Off says the person turned its sandbox off.
	Off bool `json:"off,omitempty"`
	// Grants are what it may do beyond running its program, each with
	// the change that takes it back (and the flag of mcptray sandbox deny
	// that does, for the command line's words).
	Grants []Grant `json:"grants,omitempty"`
	// Asked is what its own entry asks for (part of what the person
	// approves); Settings are the person's with it, in force.
	Asked    sandbox.Settings `json:"asked"`
	Settings sandbox.Settings `json:"settings"`
	// AskedChange says, when its entry asks for anything (the Grants
	// with AskedBy), how to take that back: "To take back what its entry
	// asks for, edit … in its project's file (…), then approve weather
	// again …"
	AskedChange string `json:"askedChange,omitempty"`
	// Policy is the full policy it starts with: every folder it may read
	// and write, and its ports. Only SandboxOf fills it: snapshots, sent
	// to the window at every change, leave the long lists out.
	Policy *sandbox.Policy `json:"policy,omitempty"`
	// Refusals are the files it was refused lately, from its error
	// output, each with the flag of mcptray sandbox allow that allows it.
	Refusals []Refusal `json:"refusals,omitempty"`
	// Network are the connections mcptray's proxy refused it lately, each
	// with its words and the command that allows it.
	Network []egress.Refusal `json:"network,omitempty"`
	// Withheld are the folders and files its command names that it is
	// not given, its command being its publisher's (a bundle's, a
	// registry package's), each with the change that gives it.
	Withheld []Withheld `json:"withheld,omitempty"`
	// Environment names the variables it gets (of the person's, those
	// that run programs; the rest only when its config names them) and
	// how many of the person's it does not, never a value.
	Environment sandbox.Environment `json:"environment"`
	// SecretArgs says who can read the secrets its config puts on its
	// command line (${secret:NAME} in its args); "" for none.
	SecretArgs string `json:"secretArgs,omitempty"`
}

// Withheld is a folder or file a server's command names and the server
// is not given (sandbox.WithheldArgs), with the change that gives it, as
// a front end sends it to ChangeSandbox.
type Withheld struct {
	sandbox.Withheld
	Change SandboxChange `json:"change"`
}

// Grant is one thing a local server may do, in words, with the change
// that takes it back.
type Grant struct {
	sandbox.Grant
	// TakeBack is the change that takes it back, as a front end sends it
	// to ChangeSandbox; nil for what the server's own configuration gives
	// (its project, the folders it names, what its entry asks for), which
	// changes there.
	TakeBack *SandboxChange `json:"takeBack,omitempty"`
}

// grantsOf are the grants' views for server, each with the change that
// takes it back.
func grantsOf(server string, gs []sandbox.Grant) []Grant {
	out := make([]Grant, len(gs))
	for i, g := range gs {
		out[i] = Grant{Grant: g}
		if g.Deny == "" {
			continue
		}
		c := SandboxChange{Server: server}
		switch g.Kind {
		case "read":
			c.Read = g.Setting
		case "write":
			c.Write = g.Setting
		case "host":
			c.Host = g.Setting
		case "port":
			c.Port, _ = strconv.Atoi(g.Setting)
		case "sockets":
			c.Sockets = true
		default:
			continue
		}
		out[i].TakeBack = &c
	}
	return out
}

// Refusal is a refused file with what allows it.
type Refusal struct {
	sandbox.Refusal
	// Change is the change that allows it, as a front end sends it to
	// ChangeSandbox.
	Change SandboxChange `json:"change"`
	// Allow is the flag of mcptray sandbox allow SERVER that allows it
	// ("--read ~/Documents/plan.txt"); Label the button's words ("Let it
	// read ~/Documents/plan.txt").
	Allow string `json:"allow"`
	Label string `json:"label"`
	// Claim says it as the server's own words: "weather says it was
	// refused reading ~/Documents/plan.txt". Without Checked, or with
	// Kept, there is no button: Change is empty, Allow and Label "".
	Claim string `json:"claim"`
}

// sandboxOpts are the connection manager's options that decide the
// servers' sandboxes, as newConns gives them.
func (s *Service) sandboxOpts() conn.Options {
	o := conn.Options{Launcher: s.opts.Launcher, Home: s.opts.Paths.Home, Egress: s.opts.Egress}
	if o.Launcher == "" {
		o.Launcher = s.opts.Conn.Launcher
	}
	if s.opts.Conn.ServersDir != "" {
		o.ServersDir = s.opts.Conn.ServersDir
	} else if s.opts.Paths.UserConfigDir != "" {
		o.ServersDir = s.opts.Paths.ServersDir()
	}
	if o.Home == "" {
		o.Home = s.opts.Conn.Home
	}
	if o.Egress == nil {
		o.Egress = s.opts.Conn.Egress
	}
	if o.Egress == nil && s.wantsEgress() {
		o.Egress = s.egressFor
	}
	if o.EgressServe == nil && s.wantsEgress() {
		o.EgressServe = s.egressServe
	}
	if s.conns != nil { // what the other servers may write, where a link may be theirs
		o.Others = s.conns.OthersWrite
	}
	return o
}

// sandboxView says what e's server may do; nil for a remote or built-in
// server, which runs elsewhere.
func (s *Service) sandboxView(e *config.Entry, stderr string, full bool) *Sandbox {
	if e.Transport != config.Stdio {
		return nil
	}
	o := s.sandboxOpts()
	if o.Egress != nil {
		o.Egress = s.egressPort
	}
	env := s.personEnv()
	in := o.SandboxInput(&e.Server, e.Command, env)
	p, perr := sandbox.Default(in) // only a missing home or data folder fails, and then the words still hold
	grants := sandbox.MarkAsked(sandbox.Grants(in), e.SandboxAsk, e.Origin.File)
	if o.Egress != nil { // what it declares, which the proxy lets it reach
		for _, h := range egress.Declared(e.Command, e.Args, nil) {
			if !slices.Contains(e.Sandbox.Hosts, h) {
				grants = append(grants, sandbox.Grant{Kind: "host", What: h, Words: "reach " + h})
			}
		}
	}
	v := &Sandbox{Off: e.Sandbox.Off, Asked: e.SandboxAsk, Settings: e.Sandbox,
		Protection: o.Protection(&e.Server, p), Grants: grantsOf(e.Name, grants)}
	if !e.SandboxAsk.Empty() {
		v.AskedChange = "To take back what its entry asks for, " + askedChange(e, in.Home)
	}
	if full {
		v.Policy = &p
	}
	switch {
	case !v.Protection.Files && e.Sandbox.Off:
		v.Words = "It runs without a sandbox: it may do anything you may, with every file in your home."
	case !v.Protection.Files:
		v.Words = "It runs without a sandbox (" + v.Protection.Words + "): it may do anything you may."
	default:
		v.Words = sandbox.Describe(grants, v.Protection)
		if version, ignores := egress.NodeIgnoresProxy(e.Command, env, s.versionInSandbox(o, &e.Server, env)); v.Protection.Network && ignores {
			v.Words += " But its runtime, Node " + version + ", does not send the server's own web requests through mcptray, so they are refused: Node 22.21 or later does."
		}
	}
	v.Refusals = s.refusalsOf(e, stderr, in.Home, p)
	v.Network = s.egressRefusals(e.Name)
	var boxed *sandbox.Policy // nil: it runs without one, and gets the desktop's addresses
	if v.Protection.Files && !e.Sandbox.Off {
		boxed = &p
	}
	v.Environment = sandbox.DescribeEnv(s.personEnv(), slices.Sorted(maps.Keys(e.Env)), e.EnvFile, boxed)
	v.SecretArgs = sandbox.DescribeArgSecrets(e.ArgSecretNames(), boxed)
	if perr == nil { // else there is no policy to tell what it is given
		for _, w := range sandbox.WithheldArgs(in, p) {
			v.Withheld = append(v.Withheld, Withheld{Withheld: w, Change: SandboxChange{Server: e.Name, Allow: true, Read: w.What}})
		}
	}
	return v
}

// versionInSandbox runs a runtime's --version for the server sv as sv
// would run it: in sv's own sandbox (sandbox.Look), with the runtime as
// its program. The runtime may lie in a folder sv may change.
func (s *Service) versionInSandbox(o conn.Options, sv *config.Server, env []string) egress.RunVersion {
	return func(ctx context.Context, program string) (string, error) {
		p, err := sandbox.Default(o.SandboxInput(sv, program, env))
		if err != nil {
			return "", err
		}
		return sandbox.Look(ctx, o.Launcher, p, program, []string{"--version"}, env)
	}
}

// runtimeVersion runs a runtime's --version for a server not configured
// yet (a bundle's, before it is installed): in a sandbox as a server with
// nothing of its own would get, which may write nothing of the home.
// Where servers run without a sandbox (no launcher was given, as in
// tests), it runs as they would: as it is.
func (s *Service) runtimeVersion(ctx context.Context, program string) (string, error) {
	o := s.sandboxOpts()
	if o.Launcher == "" || o.ServersDir == "" {
		out, err := exec.CommandContext(ctx, program, "--version").CombinedOutput()
		return string(out), err
	}
	env := s.personEnv()
	p, err := sandbox.Default(sandbox.Input{Program: program, Env: env, Home: o.Home,
		DataDir: filepath.Join(o.ServersDir, ".runtime-look"), Namespaces: sandbox.Isolation(o.Launcher)})
	if err != nil {
		return "", err
	}
	return sandbox.Look(ctx, o.Launcher, p, program, []string{"--version"}, env)
}

// writableOf are the folders e's server may write, as its sandbox would
// give them now, and those other servers may (a link there may be theirs).
func (s *Service) writableOf(e *config.Entry) []string {
	o := s.sandboxOpts()
	if o.Egress != nil {
		o.Egress = s.egressPort // no credential minted
	}
	env := s.personEnv()
	p, _ := sandbox.Default(o.SandboxInput(&e.Server, e.Command, env))
	return append(p.Write, p.Shared...)
}

// personEnv is the person's environment that servers start from: the
// one the service was given, else the login shell's once it was read,
// else mcptray's own.
func (s *Service) personEnv() []string {
	if env := s.opts.Conn.BaseEnv; env != nil {
		return env
	}
	if env, ok := transport.KnownLoginEnv(); ok {
		return env
	}
	return os.Environ()
}

// SandboxOf says what the named local server may do, with its full
// policy (mcptray sandbox SERVER --json).
func (s *Service) SandboxOf(ctx context.Context, name string) (Sandbox, error) {
	if err := s.checkOpen(); err != nil {
		return Sandbox{}, err
	}
	s.mu.Lock()
	set := s.set
	s.mu.Unlock()
	e, err := s.find(set, name)
	if err != nil {
		return Sandbox{}, err
	}
	if e.Transport != config.Stdio {
		return Sandbox{}, newError(Invalid, "%s runs elsewhere (%s): only local servers run in a sandbox", sanitize.Line(e.Name), e.Transport)
	}
	info, _ := s.conns.Report().Find(e.Name)
	return *s.sandboxView(e, info.Stderr+"\n"+info.Status.Err, true), nil
}

// SandboxChange is one change to a server's sandbox: a folder to read or
// write, a host or a port, allowed or taken back.
type SandboxChange struct {
	Server string `json:"server"`
	// Allow adds; otherwise the item is taken back.
	Allow bool   `json:"allow"`
	Read  string `json:"read,omitempty"`
	Write string `json:"write,omitempty"`
	// Host is kept for the egress proxy, which reads it; the sandbox
	// itself knows only ports.
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	// Sockets is other programs' Unix sockets (sandbox.SocketsWords).
	Sockets bool `json:"sockets,omitempty"`
}

// ChangeSandbox allows a server more, or takes back what the person
// allowed, in mcptray's config file; the server restarts with it. What its
// own entry asks for is taken back in that entry, not here.
func (s *Service) ChangeSandbox(ctx context.Context, c SandboxChange) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	set := s.inUse()
	e, err := s.find(set, c.Server)
	if err != nil {
		return err
	}
	if e.Transport != config.Stdio {
		return newError(Invalid, "%s runs elsewhere (%s): only local servers run in a sandbox", sanitize.Line(e.Name), e.Transport)
	}
	n := 0
	for _, v := range []bool{c.Read != "", c.Write != "", c.Host != "", c.Port != 0, c.Sockets} {
		if v {
			n++
		}
	}
	if n != 1 {
		return newError(Invalid, "say one thing to allow or deny: --read PATH, --write PATH, --host HOST, --port N or --sockets")
	}
	// A path is kept in its one spelling (sandbox.GrantPath), with ~ for
	// the home: given as ~/x, $HOME/x, /home/ann/x/ or through a symlink,
	// it is one grant, and taken back in any of them.
	home := s.opts.Paths.Home
	var path string
	if c.Read+c.Write != "" {
		// Not resolved through a link in what the server may write: the
		// link may be its own, leading where the person did not say.
		full, err := sandbox.GrantPathIn(home, c.Read+c.Write, s.writableOf(e))
		if err != nil {
			return newError(Invalid, "%s", sanitize.Line(err.Error()))
		}
		path = sandbox.Tilde(filepath.Clean(home), full)
	}
	if c.Port < 0 || c.Port > 65535 {
		return newError(Invalid, "%d is not a TCP port (1 to 65535)", c.Port)
	}
	host := c.Host
	if c.Host != "" {
		if host, err = egress.NormalHost(c.Host); err != nil {
			return newError(Invalid, "%q is not a host; give one such as api.github.com, *.github.com or localhost:5432", sanitize.Line(c.Host))
		}
	}
	if !c.Allow {
		if err := askedInFile(e, c, path, host, home); err != nil {
			return err
		}
		if err := notAllowed(e, set.Sandbox[e.Name], c, path, host, home); err != nil {
			return err
		}
	}
	err = config.ModifySandbox(s.opts.Paths.UserFile(), e.Name, func(st *sandbox.Settings) {
		switch {
		case c.Read != "":
			st.Read = editPath(st.Read, path, c.Allow, home)
		case c.Write != "":
			st.Write = editPath(st.Write, path, c.Allow, home)
		case c.Host != "":
			st.Hosts = edit(st.Hosts, host, c.Allow)
		case c.Sockets:
			st.Sockets = c.Allow
		default:
			st.Ports = edit(st.Ports, c.Port, c.Allow)
		}
	})
	if err != nil {
		return wrapError(err)
	}
	if c.Allow {
		s.recordTrustBy(ctx, activity.SandboxAllowance, e.Name, sandboxWords(c, path, host))
	}
	s.reload()
	return nil
}

// askedInFile refuses to take back what e's own entry asks for in its
// file: it would change nothing, as the file still asks. The error says
// where it is asked for and how to change it. home expands a leading ~.
func askedInFile(e *config.Entry, c SandboxChange, path, host, home string) error {
	ask := e.SandboxAsk
	both := slices.Concat(ask.Read, ask.Write) // reading what it may change is asked for too
	ask.Read, ask.Write = both, both
	if !gives(ask, c, path, host, home) {
		return nil
	}
	return newError(NotAllowed, "%s may %s because %s asks for it, so mcptray cannot take it back. To change that, %s",
		sanitize.Line(e.Name), sandboxWords(c, path, host), whoseFile(e), askedChange(e, home))
}

// notAllowed refuses to take back what the person never allowed e
// (mine, their settings for it): it would change nothing. What it
// declares (the registry its runtime installs from) is said so.
func notAllowed(e *config.Entry, mine sandbox.Settings, c SandboxChange, path, host, home string) error {
	if gives(mine, c, path, host, home) {
		return nil
	}
	name, what := sanitize.Line(e.Name), sandboxWords(c, path, host)
	if c.Read != "" && gives(mine, SandboxChange{Write: path}, path, host, home) {
		return newError(Invalid, "%s may read and change %s: mcptray sandbox deny %s --write %s takes that back.", name, sanitize.Line(path), name, sanitize.Line(path))
	}
	if c.Host != "" && slices.Contains(egress.Declared(e.Command, e.Args, nil), host) {
		return newError(NotAllowed, "%s may %s because its runtime installs its packages from there, so mcptray cannot take it back.", name, what)
	}
	return newError(Invalid, "You did not let %s %s, so there is nothing to take back; mcptray sandbox %s lists what it may do.", name, what, name)
}

// gives reports whether st has the item c names (path and host as
// ChangeSandbox tidied them), a path in any spelling (samePath).
func gives(st sandbox.Settings, c SandboxChange, path, host, home string) bool {
	same := func(p string) bool { return samePath(home, p, path) }
	switch {
	case c.Read != "":
		return slices.ContainsFunc(st.Read, same)
	case c.Write != "":
		return slices.ContainsFunc(st.Write, same)
	case c.Host != "":
		return slices.ContainsFunc(st.Hosts, func(h string) bool { n, err := egress.NormalHost(h); return err == nil && n == host })
	case c.Sockets:
		return st.Sockets
	}
	return slices.Contains(st.Ports, c.Port)
}

// whoseFile is e's file in words: "its project's file".
func whoseFile(e *config.Entry) string {
	if e.Scope.NeedsApproval() {
		return "its project's file"
	}
	return "its config file"
}

// askedChange ends "To take back what its entry asks for, …": how the
// person changes what e's entry asks of its sandbox. home shortens the
// file's path.
func askedChange(e *config.Entry, home string) string {
	name := sanitize.Line(e.Name)
	then := "mcptray restarts " + name + " when the file changes."
	if e.Scope.NeedsApproval() {
		then = "approve " + name + " again: a file cannot change what its server may do without your approval."
	}
	return "edit the \"mcptray\": {\"sandbox\": …} part of " + name + "'s entry in " + whoseFile(e) + " (" + sanitize.Line(sandbox.Tilde(home, e.Origin.File)) + "), then " + then
}

// sandboxWords says what an allowance lets a server do, after "you let
// SERVER ".
func sandboxWords(c SandboxChange, path, host string) string {
	switch {
	case c.Read != "":
		return "read " + path
	case c.Write != "":
		return "read and change " + path
	case c.Host != "":
		return "reach " + host
	case c.Sockets:
		return sandbox.SocketsWords
	}
	return fmt.Sprintf("connect to port %d", c.Port)
}

// SetSandbox turns a server's sandbox on or off; off, it runs with every
// right the person has.
func (s *Service) SetSandbox(ctx context.Context, name string, on bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	e, err := s.find(s.inUse(), name)
	if err != nil {
		return err
	}
	if e.Transport != config.Stdio {
		return newError(Invalid, "%s runs elsewhere (%s): only local servers run in a sandbox", sanitize.Line(e.Name), e.Transport)
	}
	if err := config.ModifySandbox(s.opts.Paths.UserFile(), e.Name, func(st *sandbox.Settings) { st.Off = !on }); err != nil {
		return wrapError(err)
	}
	if !on {
		s.recordTrustBy(ctx, activity.SandboxAllowance, e.Name, "run without a sandbox")
	}
	s.reload()
	return nil
}

func edit[T comparable](list []T, v T, add bool) []T {
	list = slices.DeleteFunc(list, func(x T) bool { return x == v })
	if add {
		list = append(list, v)
	}
	return list
}

// editPath adds path to list, or takes it out, in whatever spelling list
// has it: a grant kept as ~/x/ by an older mcptray, or as $HOME/x by a
// hand edit, goes when x is taken back, and one is kept where two
// spellings were.
func editPath(list []string, path string, add bool, home string) []string {
	list = slices.DeleteFunc(list, func(p string) bool { return samePath(home, p, path) })
	if add {
		list = append(list, path)
	}
	return list
}

// samePath reports whether a and b name one folder (sandbox.GrantPath); a
// spelling that names none is only itself.
func samePath(home, a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := sandbox.GrantPath(home, a)
	fb, errB := sandbox.GrantPath(home, b)
	return errA == nil && errB == nil && fa == fb
}
