package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Policy is what one server may do. Paths are absolute; one that does not
// exist when the server starts is left out.
type Policy struct {
	// Read are folders (or files) the server may read and run programs
	// from.
	Read []string `json:"read,omitempty"`
	// Write are folders (or files) it may also write, create and delete in.
	Write []string `json:"write,omitempty"`
	// RestrictTCP limits TCP connections to Ports; false leaves TCP as it
	// is (no egress proxy to send it through).
	RestrictTCP bool  `json:"restrictTCP,omitempty"`
	Ports       []int `json:"ports,omitempty"`
	// Env is set in the server's environment (TMPDIR, the proxy's
	// variables); Unset is taken out of it.
	Env   map[string]string `json:"env,omitempty"`
	Unset []string          `json:"unset,omitempty"`
	// None runs the server without Landlock (podman, see the package doc);
	// the rest of the Policy still says what it would be.
	None bool `json:"none,omitempty"`
	// Sockets lets the server connect to Unix sockets by name: docker's
	// and podman's clients need their daemon's, and the person may grant
	// it. Without it the launcher's system call filter refuses them all.
	Sockets bool `json:"sockets,omitempty"`
	// AnySocket, with Sockets, lets it connect to any named socket: the
	// person's grant (Settings.Sockets). Without it, from Landlock ABI 9
	// only the sockets beneath what it may write are in reach (docker's,
	// for docker's client).
	AnySocket bool `json:"anySocket,omitempty"`
	// Namespaces runs the server in a user and PID namespace of its own,
	// and with RestrictTCP in a network namespace of its own as well, in
	// which the proxy's port (Bridge) is the one thing to reach. Set where
	// this computer lets a program make them (Isolation).
	Namespaces bool `json:"namespaces,omitempty"`
	// Bridge is the proxy's port on 127.0.0.1, brought into the server's
	// network namespace; 0 when it has none.
	Bridge int `json:"bridge,omitempty"`
	// Shared are folders other servers may write (Input.OthersWrite): a
	// rule in one, like a rule in Write, is opened beneath it through no
	// link, and so is what mcptray makes or reads there for this server.
	// They give it nothing.
	Shared []string `json:"shared,omitempty"`
	// Make are the folders Prepare creates: the data folder, its tmp, and
	// the caches of its own that its package managers install into.
	Make []string `json:"-"`
}

// Writes are the folders and files of the computer's that p lets its
// server change: its Write, less the /tmp and /dev/shm that are its own
// in namespaces of its own. What another server's rules name there is
// given to it through no link (Input.OthersWrite).
func (p Policy) Writes() []string {
	var out []string
	for _, w := range p.Write {
		if p.Namespaces && (w == tmpDir || w == "/dev/shm") || slices.Contains(systemWrite, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// Prepare creates the folders p needs before the server starts. A cache
// that cannot be made is left be (its rule then covers nothing); the
// server's own folder must be made.
func (p Policy) Prepare() error {
	for i, d := range p.Make {
		// Beneath what the server may write, through no link that leads
		// out: its cache may be a link to the person's.
		if err := mkdirBeneath(p.beneath(), d); err != nil && i < 2 {
			return fmt.Errorf("making its data folder: %w", err)
		}
	}
	return nil
}

// beneath are the folders beneath which mcptray and the launcher follow
// no link for p's server: those it may write and those others may.
func (p Policy) beneath() []string {
	return append(slices.Clip(p.Write), p.Shared...)
}

// Settings are a server's own additions to its default policy: the
// person's (mcptray sandbox allow) and its project's, once approved.
type Settings struct {
	// Off runs the server without a sandbox.
	Off   bool     `json:"off,omitempty"`
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	// Hosts are the hosts the server may reach through the egress proxy
	// (which reads them); the sandbox itself knows only ports.
	Hosts []string `json:"hosts,omitempty"`
	Ports []int    `json:"ports,omitempty"`
	// Sockets lets the server connect to other programs' Unix sockets
	// (the session bus and the keyring behind it, ssh-agent, Docker's):
	// given only by the person, in words that say what it means.
	Sockets bool `json:"sockets,omitempty"`
	// ArgsGrantNothing says that the folders and files the server's
	// command line names are given nothing (Input.ArgsGrantNothing): a
	// server installed from the MCP Registry, whose command the publisher
	// wrote, gets only what Read and Write say, the paths the person typed
	// when installing it among them (ArgGrants). It takes nothing away
	// from what else the settings give, so either side may set it.
	ArgsGrantNothing bool `json:"argsGrantNothing,omitempty"`
}

// Empty reports whether s adds nothing (and takes nothing away).
func (s Settings) Empty() bool {
	return !s.Off && !s.Sockets && !s.ArgsGrantNothing && len(s.Read) == 0 && len(s.Write) == 0 && len(s.Hosts) == 0 && len(s.Ports) == 0
}

// Merge returns s with o's additions; Off in either is Off, and so is
// ArgsGrantNothing.
func (s Settings) Merge(o Settings) Settings {
	return Settings{
		Off:              s.Off || o.Off,
		Sockets:          s.Sockets || o.Sockets,
		ArgsGrantNothing: s.ArgsGrantNothing || o.ArgsGrantNothing,
		Read:             union(s.Read, o.Read),
		Write:            union(s.Write, o.Write),
		Hosts:            union(s.Hosts, o.Hosts),
		Ports:            union(s.Ports, o.Ports),
	}
}

func union[T comparable](a, b []T) []T {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Input is what Default needs to know about a server.
type Input struct {
	// Program is the absolute path of the program to run; Args its
	// arguments (without the program's name).
	Program string
	Args    []string
	// Env is the environment it runs with: PATH, XDG_DATA_HOME and
	// GOFLAGS are read from it (and DOCKER_HOST, XDG_RUNTIME_DIR for
	// docker).
	Env []string
	// Home is the person's home folder.
	Home string
	// DataDir is the server's private folder; Default creates it, and a
	// tmp folder in it.
	DataDir string
	// ProjectDir is the project folder of a project's server, or "".
	ProjectDir string
	// Dir is the folder it starts in.
	Dir string
	// EgressPort is the egress proxy's port on 127.0.0.1; 0 means there is
	// no proxy, and TCP stays unrestricted.
	EgressPort int
	// EgressEnv are the proxy's variables for the server's environment.
	EgressEnv map[string]string
	// Namespaces says that this computer lets the launcher run servers in
	// namespaces of their own (Isolation).
	Namespaces bool
	// Settings are the server's own additions.
	Settings Settings
	// ArgsGrantNothing says that the person did not choose the command's
	// arguments (an MCP Bundle's manifest wrote them): a folder or file
	// they name is given nothing, where a command the person wrote gives
	// the folders it names. What such a server may reach of the home is
	// what Settings say, which the person saw when installing it.
	ArgsGrantNothing bool
	// OthersWrite are the folders the other servers may write, as their
	// configs give them (each one's Policy.Writes): a link there may be
	// another server's, planted for this one's next start.
	OthersWrite []string
}

// System paths every server may read. /proc is there because runtimes
// read /proc/self; see the package doc for each.
var systemRead = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/nix/store", "/snap", "/var/lib/snapd", "/run/systemd/resolve",
	"/proc", "/sys/devices/system/cpu", "/sys/fs/cgroup",
	"/dev/urandom", "/dev/random",
}

// systemWrite are the device files every server may write.
var systemWrite = []string{"/dev/null", "/dev/zero", "/dev/full"}

// tmpDir is where the computer's shared temporary folder is.
const tmpDir = "/tmp"

// inTmp are the folders and files right beneath /tmp that hold paths,
// each once: what a server in namespaces of its own has carried into its
// own /tmp (mounts_linux.go).
func inTmp(paths []string) []string {
	var out []string
	for _, p := range paths {
		rest, ok := strings.CutPrefix(filepath.Clean(p), tmpDir+"/")
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rest, "/")
		if top = tmpDir + "/" + top; !slices.Contains(out, top) {
			out = append(out, top)
		}
	}
	return out
}

// homeRead are the version managers' and runtimes' folders, relative to
// the home.
var homeRead = []string{
	".nvm", ".fnm", ".local/share/fnm", ".volta", ".pyenv", ".asdf", ".local/share/mise",
	".local/bin", ".local/lib", ".cargo/bin", ".rustup", "go/bin", "sdk", ".dotnet/tools",
}

// broad are folders in the home that hold many apps' files: never given
// whole as a program's install folder.
var broad = []string{".local", ".local/share", ".config", ".cache", "go"}

// Default computes the policy of a stdio server from in, as the package doc
// lists it. It changes nothing on disk: Prepare makes the folders.
func Default(in Input) (Policy, error) {
	if in.Home == "" || !filepath.IsAbs(in.Home) {
		return Policy{}, errors.New("the home folder is not known")
	}
	if in.DataDir == "" || !filepath.IsAbs(in.DataDir) {
		return Policy{}, errors.New("the server has no data folder")
	}
	tmp := filepath.Join(in.DataDir, "tmp")
	b := &builder{home: filepath.Clean(in.Home), make: []string{in.DataDir, tmp}}
	b.read(systemRead...)
	b.write(systemWrite...)
	for _, d := range homeRead {
		b.read(b.inHome(d))
	}
	program := filepath.Base(in.Program)
	dataHome := envValue(in.Env, "XDG_DATA_HOME")
	for _, d := range sharedRead {
		b.read(b.inHome(d))
		if rest, ok := strings.CutPrefix(d, ".local/share/"); ok && filepath.IsAbs(dataHome) {
			b.read(filepath.Join(dataHome, rest))
		}
	}
	cacheEnv, cacheDirs := ownCacheEnv(in.DataDir, program, in.Env)
	b.make = append(b.make, cacheDirs...)
	for _, d := range filepath.SplitList(envValue(in.Env, "PATH")) {
		if filepath.IsAbs(d) && b.underHome(d) && filepath.Clean(d) != b.home {
			b.read(d)
		}
	}
	// The program itself, whatever its folder: a folder that holds the
	// home (a program in /tmp/x beside a home in /tmp/x/home) is not
	// given, but the program still runs.
	b.read(b.installFolder(in.Program), in.Program)
	// The folders it will be given to write, for the files its command
	// line names (arg): one in them is read through them.
	b.writes = append(b.writes, in.ProjectDir, in.DataDir)
	b.writes = append(b.writes, in.OthersWrite...)
	for _, p := range in.Settings.Write {
		if d, err := expandGrant(b.home, p); err == nil {
			b.writes = append(b.writes, d)
		}
	}
	if !in.ArgsGrantNothing {
		for _, a := range in.Args {
			if d, ok := b.argFolder(a); ok {
				b.writes = append(b.writes, d)
			}
		}
	}
	b.commandArgs(in)
	if in.Dir != "" && filepath.Clean(in.Dir) != b.home {
		b.read(in.Dir)
	}
	if in.ProjectDir != "" {
		b.write(in.ProjectDir)
	}
	b.write(in.DataDir)
	// What the person allowed, in its one spelling however it was kept
	// (GrantPath), but not resolved through a link in what the server may
	// write (grantIn); a relative path, which names nothing, is left out.
	writable := slices.Concat(b.w, in.OthersWrite)
	for _, p := range in.Settings.Write {
		if d, err := expandGrant(b.home, p); err == nil {
			writable = append(writable, d)
		}
	}
	for _, p := range in.Settings.Read {
		if d, err := grantIn(b.home, p, writable); err == nil {
			b.read(d)
		}
	}
	for _, p := range in.Settings.Write {
		d, err := grantIn(b.home, p, writable)
		if err != nil {
			continue
		}
		// Allowed by the person, a folder in the home that is not there
		// yet is made, as the server would have made it.
		if b.underHome(d) && d != b.home {
			b.make = append(b.make, d)
		}
		b.write(d)
	}
	// A folder named on its command line that the person said it may
	// only read (an MCP Bundle's folder setting, say) is read, not
	// changed.
	for _, d := range readOnlyArgs(b, in.Settings) {
		b.w = slices.DeleteFunc(b.w, func(w string) bool { return w == d })
		b.read(d)
	}
	// Where the program's links lead, unless it lies in what the server
	// may write: a link there (a project's .venv/bin/python) is the
	// server's to point at ~/.aws. Such a program's own folder is given
	// already, and the runtimes its links lead to are read as any
	// server's (homeRead, sharedRead, the system).
	if real, err := filepath.EvalSymlinks(in.Program); err == nil && real != in.Program && !inWritable(slices.Concat(b.w, in.OthersWrite), in.Program) {
		b.read(b.installFolder(real), real)
	}
	if program == "docker" {
		for _, s := range dockerSockets(in.Env) {
			b.write(s)
		}
		b.read(b.inHome(".docker"))
	}
	p := Policy{Read: b.r, Write: b.w, None: program == "podman", Make: b.make, Env: map[string]string{
		"TMPDIR": tmp, "TMP": tmp, "TEMP": tmp,
	}, Unset: []string{"SSH_AUTH_SOCK"}}
	for _, d := range in.OthersWrite {
		if d = filepath.Clean(d); filepath.IsAbs(d) && !slices.Contains(p.Shared, d) {
			p.Shared = append(p.Shared, d)
		}
	}
	maps.Copy(p.Env, cacheEnv)
	// docker's and podman's clients talk to their daemon over its socket:
	// the approved command needs it, and the container keeps its own
	// isolation.
	p.Sockets = program == "docker" || program == "podman" || in.Settings.Sockets
	p.AnySocket = in.Settings.Sockets
	if !p.Sockets { // the desktop's addresses name what it cannot reach
		p.Unset = append(p.Unset, desktopVars...)
	}
	p.Namespaces = in.Namespaces && !p.None
	if p.Namespaces {
		// Its own /tmp and /dev/shm (mounts_linux.go); without namespaces
		// both are the computer's, shared with every program, and
		// refused. Its /tmp only where its policy names nothing in the
		// computer's: what it names is carried in, and a rule on /tmp
		// would hold for it too.
		p.Write = append(p.Write, "/dev/shm")
		if len(inTmp(p.Read)) == 0 && len(inTmp(p.Write)) == 0 {
			p.Write = append(p.Write, tmpDir)
		}
	}
	if in.EgressPort > 0 {
		if p.Namespaces {
			p.Bridge = in.EgressPort
		}
		p.RestrictTCP = true
		p.Ports = union([]int{in.EgressPort}, in.Settings.Ports)
		for k, v := range in.EgressEnv {
			p.Env[k] = v
		}
	}
	return p, nil
}

// dockerSockets are where docker's daemon listens.
func dockerSockets(env []string) []string {
	out := []string{"/var/run/docker.sock", "/run/docker.sock"}
	if h := envValue(env, "DOCKER_HOST"); strings.HasPrefix(h, "unix://") {
		out = append(out, strings.TrimPrefix(h, "unix://"))
	}
	if r := envValue(env, "XDG_RUNTIME_DIR"); filepath.IsAbs(r) {
		out = append(out, filepath.Join(r, "docker.sock"))
	}
	return out
}

// builder collects paths once each.
type builder struct {
	home       string
	r, w, make []string
	// args are the folders named on the command line, given to write.
	args []string
	// writes are the folders it is to be given to write, known before
	// the command line is read (arg).
	writes []string
}

// readOnlyArgs are the folders b's command line names (as b keeps them)
// that the settings give to read and not to write, each compared in its
// one spelling (GrantPath).
func readOnlyArgs(b *builder, s Settings) []string {
	spelt := func(list []string) []string {
		var out []string
		for _, p := range list {
			if d, err := GrantPath(b.home, p); err == nil {
				out = append(out, d)
			}
		}
		return out
	}
	read, write := spelt(s.Read), spelt(s.Write)
	var out []string
	for _, a := range b.args {
		d, err := GrantPath(b.home, a)
		if err != nil {
			d = a
		}
		if slices.Contains(read, d) && !slices.Contains(write, d) {
			out = append(out, a)
		}
	}
	return out
}

func (b *builder) read(paths ...string) {
	for _, p := range paths {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(b.r, filepath.Clean(p)) {
			b.r = append(b.r, filepath.Clean(p))
		}
	}
}

func (b *builder) write(paths ...string) {
	for _, p := range paths {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(b.w, filepath.Clean(p)) {
			b.w = append(b.w, filepath.Clean(p))
		}
	}
}

func (b *builder) inHome(rel string) string { return filepath.Join(b.home, rel) }

// underHome reports whether p is the home or inside it.
func (b *builder) underHome(p string) bool { return within(b.home, p) }

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// expand turns ~ and ~/x into the home.
func (b *builder) expand(p string) string {
	if p == "~" {
		return b.home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(b.home, rest)
	}
	return p
}

// installFolder is the folder a program was installed in: the whole
// node_modules it is in (a package's .bin link and its dependencies are
// all there), the parent of its bin folder, or its own folder; "" when
// that would be the home, a folder above it, or a folder of many apps'
// files (or of the system's, which is read already).
func (b *builder) installFolder(program string) string {
	if !filepath.IsAbs(program) {
		return ""
	}
	dir := nodeModulesOf(program)
	if dir == "" {
		dir = filepath.Dir(program)
		if filepath.Base(dir) == "bin" {
			dir = filepath.Dir(dir)
		}
	}
	if dir == "/" || within(dir, b.home) {
		return ""
	}
	for _, d := range broad {
		if dir == b.inHome(d) {
			return filepath.Join(filepath.Dir(program)) // its bin folder alone
		}
	}
	if dir == "/usr" || dir == "/usr/local" || dir == "/opt" {
		return ""
	}
	return dir
}

// commandArgs adds what in's command line names (arg), unless the person
// did not choose it (ArgsGrantNothing).
func (b *builder) commandArgs(in Input) {
	if in.ArgsGrantNothing {
		return
	}
	for _, a := range in.Args {
		b.arg(a)
	}
}

// ArgGrants is what the command-line rule (arg) gives for args in the
// home home: each existing folder to write, each existing file's project
// or folder to read (the file alone when that would be the home), never
// the home itself or a folder above it. A server whose command line
// grants nothing (Settings.ArgsGrantNothing) is given these for the
// values the person typed, as settings.
func ArgGrants(home string, args []string) (read, write []string) {
	if home == "" || !filepath.IsAbs(home) {
		return nil, nil
	}
	b := &builder{home: filepath.Clean(home)}
	for _, a := range args {
		b.arg(a)
	}
	return b.r, b.w
}

// QuoteArg quotes a path for a shell when it needs it.
func QuoteArg(s string) string { return quoteArg(s) }

// arg adds what one command-line argument names: an existing folder to
// write, an existing file's project to read. An option's value
// (--dir=/x) counts too.
func (b *builder) arg(a string) {
	a, fi, ok := b.argPath(a)
	if !ok {
		return
	}
	if fi.IsDir() {
		b.write(a)
		b.args = append(b.args, a)
		return
	}
	if inWritable(b.writes, a) {
		// In a folder it may write, which gives it already; and the
		// project above it, found by what that folder holds, would be
		// the server's to choose: without its package.json, the whole
		// repository around it.
		return
	}
	if d := projectOf(a); d != b.home && !within(d, b.home) {
		b.read(d)
	} else if dir := filepath.Dir(a); dir != b.home && !within(dir, b.home) {
		b.read(dir)
	} else {
		b.read(a)
	}
}

// argPath is the existing folder or file a command-line argument names
// (an option's value, --dir=/x, too), cleaned; not ok for none, and for
// the home or a folder above it, which an argument never gives.
func (b *builder) argPath(a string) (string, os.FileInfo, bool) {
	if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
		a = v
	}
	a = b.expand(a)
	if !filepath.IsAbs(a) {
		return "", nil, false
	}
	a = filepath.Clean(a)
	fi, err := os.Stat(a)
	if err != nil || a == b.home || within(a, b.home) || a == "/" {
		return "", nil, false
	}
	return a, fi, true
}

// argFolder is the folder argument a names, which arg gives to write.
func (b *builder) argFolder(a string) (string, bool) {
	d, fi, ok := b.argPath(a)
	return d, ok && fi.IsDir()
}

// projectOf is the folder a file named on the command line belongs to:
// the whole node_modules it is installed in, or the nearest folder above it
// with a package.json, pyproject.toml, go.mod or .git, or its own folder.
func projectOf(file string) string {
	if d := nodeModulesOf(file); d != "" {
		return d
	}
	for d := filepath.Dir(file); d != filepath.Dir(d); d = filepath.Dir(d) {
		for _, m := range []string{"package.json", "pyproject.toml", "go.mod", ".git"} {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
	}
	return filepath.Dir(file)
}

// nodeModulesOf is the outermost node_modules folder file is in, or "".
func nodeModulesOf(file string) string {
	if i := strings.Index(file, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
		return file[:i+len("/node_modules")]
	}
	return ""
}

// envValue is the value of the last entry named key in env.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Environ applies p's Env and Unset to env.
func (p Policy) Environ(env []string) []string {
	out := make([]string, 0, len(env)+len(p.Env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := p.Env[k]; ok || slices.Contains(p.Unset, k) {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Env)) {
		out = append(out, k+"="+p.Env[k])
	}
	return out
}

// Clone returns a copy that shares nothing with s.
func (s Settings) Clone() Settings {
	s.Read, s.Write, s.Hosts, s.Ports = slices.Clone(s.Read), slices.Clone(s.Write), slices.Clone(s.Hosts), slices.Clone(s.Ports)
	return s
}

// FolderName is a server's name as a folder name: letters, digits, '.',
// '-' and '_' as they are, anything else as '_', with a short hash of the
// name when anything was replaced, so that two names never share a folder.
func FolderName(server string) string {
	var b strings.Builder
	changed := false
	for _, r := range server {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
		changed = true
	}
	name := b.String()
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		changed, name = true, "_"+name
	}
	if changed {
		sum := sha256.Sum256([]byte(server))
		name += "-" + hex.EncodeToString(sum[:4])
	}
	return name
}
