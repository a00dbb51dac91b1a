package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRefusals(t *testing.T) {
	stderr := strings.Join([]string{
		"Secure MCP Filesystem Server running on stdio",
		"Error: EACCES: permission denied, open '/home/ann/Documents/plan.txt'",
		"PermissionError: [Errno 13] Permission denied: '/home/ann/.aws/credentials'",
		"open /home/ann/notes/today.md: permission denied",
		"sh: 1: cannot create /tmp/out.log: Permission denied",
		"Error: EACCES: permission denied, mkdir '/home/ann/.weather'",
		"Error: EACCES: permission denied, open '/home/ann/Documents/plan.txt'",
		"a line that says permission denied with no path",
	}, "\n")
	got := Refusals(stderr)
	want := []struct {
		path  string
		write bool
		allow string
	}{
		{"/home/ann/.aws/credentials", false, "--read ~/.aws/credentials"},
		{"/home/ann/notes/today.md", false, "--read ~/notes/today.md"},
		{"/tmp/out.log", true, "--write /tmp"},
		{"/home/ann/.weather", true, "--write ~/.weather"},
		{"/home/ann/Documents/plan.txt", false, "--read ~/Documents/plan.txt"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d refusals, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Path != w.path || got[i].Write != w.write || got[i].Allow("/home/ann") != w.allow {
			t.Errorf("refusal %d: %+v (allow %q), want %+v", i, got[i], got[i].Allow("/home/ann"), w)
		}
	}
	if w := got[4].Words("/home/ann"); w != "Let it read ~/Documents/plan.txt" {
		t.Errorf("words: %q", w)
	}
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	named := filepath.Join(dir, "shared")
	if err := os.MkdirAll(named, 0o700); err != nil {
		t.Fatal(err)
	}
	in := Input{Home: home, ProjectDir: filepath.Join(home, "code", "app"), Args: []string{"-y", "server-filesystem", named},
		Settings: Settings{Read: []string{"~/Documents"}, Hosts: []string{"api.github.com"}}}
	g := Grants(in)
	got := Describe(g, Level{Files: true, Network: true, Isolated: true})
	want := "It may read and change this project folder (~/code/app), read and change " + named + ", named in its command, read ~/Documents and reach api.github.com. Nothing else in your home. It reaches the network only through mcptray."
	if got != want {
		t.Errorf("Describe:\n got %q\nwant %q", got, want)
	}
	if g[2].Deny != "--read ~/Documents" || g[0].Deny != "" {
		t.Errorf("deny flags: %+v", g)
	}
	// Without a network of its own, the words say what is left open.
	if got := Describe(nil, Level{Files: true, Network: true}); !strings.Contains(got, "asks you about each new host, but this system does not let mcptray give it a network of its own") {
		t.Errorf("Describe(fallback): %q", got)
	}
	if got := Describe(nil, Level{Files: true}); got != "It may run its program and use its own data folder. Nothing else in your home. It may connect anywhere on the network." {
		t.Errorf("Describe(nothing): %q", got)
	}
}

// TestDefaultReadsItsNodeModules: a program run from a node_modules/.bin
// (an npm install outside npx's cache) may read the whole node_modules,
// where its dependencies are; not the project around it.
func TestDefaultReadsItsNodeModules(t *testing.T) {
	home := t.TempDir()
	elsewhere := t.TempDir()
	nm := filepath.Join(elsewhere, "tools", "node_modules")
	if err := os.MkdirAll(filepath.Join(nm, ".bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Input{Program: filepath.Join(nm, ".bin", "mcp-server-everything"), Home: home,
		DataDir: filepath.Join(home, ".config", "mcptray", "servers", "e"), Env: []string{"PATH=/usr/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(p.Read, nm) {
		t.Errorf("the default does not read %s: %v", nm, p.Read)
	}
	if contains(p.Read, filepath.Dir(nm)) {
		t.Errorf("the default reads the project around it, %s", filepath.Dir(nm))
	}
}

func TestDefaultLists(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", ".aws", ".mozilla", ".local/share/keyrings", ".config/mcptray", ".nvm/versions/node/v22/bin"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(home, ".config", "mcptray", "servers", "w")
	p, err := Default(Input{Program: filepath.Join(home, ".nvm/versions/node/v22/bin/npx"), Args: []string{"-y", "weather"}, Home: home, DataDir: data,
		Env: []string{"PATH=" + filepath.Join(home, ".nvm/versions/node/v22/bin") + ":/usr/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]string(nil), p.Read...), p.Write...)
	for _, path := range all {
		for _, never := range []string{".ssh", ".aws", ".mozilla", ".local/share/keyrings", ".config/mcptray", ".config"} {
			if path == filepath.Join(home, never) || path == home {
				t.Errorf("the default gives %s", path)
			}
		}
	}
	for _, want := range []string{filepath.Join(home, ".nvm"), "/usr", "/etc", "/proc"} {
		if !contains(p.Read, want) {
			t.Errorf("the default does not read %s: %v", want, p.Read)
		}
	}
	for _, want := range []string{data, "/dev/null"} {
		if !contains(p.Write, want) {
			t.Errorf("the default does not write %s: %v", want, p.Write)
		}
	}
	if contains(append(p.Read, p.Write...), filepath.Join(home, ".npm")) {
		t.Errorf("the default gives the person's npm cache: %v", p.Write)
	}
	npmCache := filepath.Join(data, "cache", "npm")
	if p.Env["TMPDIR"] != filepath.Join(data, "tmp") || p.RestrictTCP || p.Env["npm_config_cache"] != npmCache || !contains(p.Make, npmCache) {
		t.Errorf("TMPDIR %q, RestrictTCP %v, npm_config_cache %q, Make %v", p.Env["TMPDIR"], p.RestrictTCP, p.Env["npm_config_cache"], p.Make)
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("Default made the data folder; Prepare should")
	}
	docker, _ := Default(Input{Program: "/usr/bin/docker", Home: home, DataDir: data})
	if !contains(docker.Write, "/var/run/docker.sock") || !contains(docker.Read, filepath.Join(home, ".docker")) {
		t.Errorf("docker gets %v / %v", docker.Read, docker.Write)
	}
	if podman, _ := Default(Input{Program: "/usr/bin/podman", Home: home, DataDir: data}); !podman.None {
		t.Error("podman is put under Landlock")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestProfile(t *testing.T) {
	p := Policy{Read: []string{"/usr", `/opt/we"ird`}, Write: []string{"/Users/ann/Library/mcptray/servers/w"}, RestrictTCP: true, Ports: []int{8123}}
	got := Profile(p)
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(subpath "/opt/we\"ird")`,
		"(allow file-read* file-write* file-map-executable\n  (subpath \"/Users/ann/Library/mcptray/servers/w\")\n)",
		`(allow network-outbound (remote tcp "localhost:8123"))`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(allow network*)") {
		t.Errorf("a restricted profile allows every connection:\n%s", got)
	}
	if open := Profile(Policy{}); !strings.Contains(open, "(allow network*)") {
		t.Errorf("with no proxy the profile should leave the network open:\n%s", open)
	}
}

func TestFolderName(t *testing.T) {
	for in, want := range map[string]string{"weather": "weather", "my server": "my_server-", "..": "_..-", "a/b": "a_b-"} {
		if got := FolderName(in); !strings.HasPrefix(got, want) || strings.ContainsAny(got, "/ ") {
			t.Errorf("FolderName(%q) = %q", in, got)
		}
	}
	if FolderName("a/b") == FolderName("a_b") {
		t.Error("two names share a folder")
	}
	// A plain name that ends as a hashed one does gets a hash of its own:
	// a project's my_notes-f30ac2b5 is not the folder of "my notes".
	hashed := FolderName("my notes")
	for _, plain := range []string{hashed, strings.ToUpper(hashed)} {
		if got := FolderName(plain); got == plain || strings.EqualFold(got, hashed) || !strings.HasPrefix(got, plain+"-") {
			t.Errorf("FolderName(%q) = %q, beside %q's %q", plain, got, "my notes", hashed)
		}
	}
	// Ordinary names keep the folders they have.
	for _, kept := range []string{"weather", "notes-2", "db-deadbee", "x-deadbeefa", "y_deadbeef", "server-v1.2.3"} {
		if got := FolderName(kept); got != kept {
			t.Errorf("FolderName(%q) = %q, its folder moved", kept, got)
		}
	}
}

// TestLevelWords: what each kernel gives, said in words.
func TestLevelWords(t *testing.T) {
	proxied := Policy{RestrictTCP: true, Ports: []int{8080}}
	for _, tc := range []struct {
		p              Policy
		abi            int
		files, network bool
		words          string
	}{
		{Policy{RestrictTCP: true, Ports: []int{8080}, Namespaces: true, Bridge: 8080}, 7, true, true, "it runs in a network of its own"},
		{proxied, 7, true, true, "a program listening on port 8080 at another address of this computer could be reached"},
		{Policy{RestrictTCP: true, Ports: []int{8080}, Sockets: true}, 7, true, true, "through them it can do anything you can on this computer"},
		{proxied, 5, true, true, "it could signal your other programs"},
		{proxied, 3, true, false, "files protected, network not: this system's kernel is older than 6.7"},
		{Policy{}, 7, true, false, "files protected; network open: mcptray's egress proxy is not running"},
		{proxied, 0, false, false, "not protected: this system's kernel has no Landlock"},
		{Policy{None: true}, 7, false, false, "podman's own container isolation"},
	} {
		l := levelFor(tc.p, tc.abi)
		if l.Files != tc.files || l.Network != tc.network || !strings.Contains(l.Words, tc.words) {
			t.Errorf("ABI %d, %+v: %+v", tc.abi, tc.p, l)
		}
	}
	if l := Off(true); l.Files || !strings.Contains(l.Words, "you turned its sandbox off") {
		t.Errorf("Off(true) = %+v", l)
	}
}

// TestSocketsOnlyAsAGrant: other programs' sockets come with docker's and
// podman's commands, or as the person's grant, listed in words that say
// what it means; never by default.
func TestSocketsOnlyAsAGrant(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	for _, tc := range []struct {
		program  string
		settings Settings
		want     bool
	}{
		{"/usr/bin/node", Settings{}, false},
		{"/usr/bin/docker", Settings{}, true},
		{"/usr/bin/node", Settings{Sockets: true}, true},
	} {
		in := Input{Program: tc.program, Home: home, DataDir: data, Settings: tc.settings, EgressPort: 9}
		p, err := Default(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Sockets != tc.want || p.AnySocket != tc.settings.Sockets {
			t.Errorf("%s with %+v: sockets %v (any %v), want %v", tc.program, tc.settings, p.Sockets, p.AnySocket, tc.want)
		}
		granted := slices.ContainsFunc(Grants(in), func(g Grant) bool { return g.Kind == "sockets" && g.Deny == "--sockets" })
		if granted != tc.settings.Sockets {
			t.Errorf("%s with %+v: the grants list sockets: %v", tc.program, tc.settings, granted)
		}
	}
	if !strings.Contains(Describe(Grants(Input{Home: home, Settings: Settings{Sockets: true}}), Level{Files: true, Network: true, Isolated: true}), "anything you can on this computer") {
		t.Error("the words do not say what the sockets grant means")
	}
	if (Settings{Sockets: true}).Empty() || !(Settings{}).Merge(Settings{Sockets: true}).Sockets {
		t.Error("Settings forgets the sockets grant")
	}
}

// TestGrantsOnceInAnySpelling: a folder an old config keeps in two
// spellings is one grant, said in its one spelling.
func TestGrantsOnceInAnySpelling(t *testing.T) {
	home := t.TempDir()
	g := Grants(Input{Home: home, Settings: Settings{Read: []string{"~/Documents", "$HOME/Documents/", home + "/Documents"}}})
	if len(g) != 1 || g[0].What != "~/Documents" || g[0].Words != "read ~/Documents" {
		t.Errorf("Grants = %+v, want one, read ~/Documents", g)
	}
}

// TestArgFolderReadOnly: a folder named on the command line is read and
// changed, unless the person's settings give it to read alone (an MCP
// Bundle's folder setting that they did not let it change): then it is
// read, and said so; a write setting for it wins.
func TestArgFolderReadOnly(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	notes := filepath.Join(home, "notes")
	if err := os.MkdirAll(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	in := Input{Program: "/usr/bin/node", Args: []string{"/b/index.js", notes}, Home: home, DataDir: filepath.Join(dir, "data")}
	p, err := Default(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Write, notes) {
		t.Fatalf("a folder named in its command is not written: %v", p.Write)
	}
	in.Settings = Settings{Read: []string{"~/notes"}}
	if p, err = Default(in); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Write, notes) || !slices.Contains(p.Read, notes) {
		t.Errorf("read alone: write %v, read %v", p.Write, p.Read)
	}
	if got := Describe(Grants(in), Level{Files: true}); !strings.HasPrefix(got, "It may read ~/notes. Nothing else") {
		t.Errorf("read alone: %q", got)
	}
	in.Settings.Write = []string{notes}
	if p, err = Default(in); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Write, notes) {
		t.Errorf("with a write setting too: write %v", p.Write)
	}
}

// TestArgGrants: ArgGrants gives what the command-line rule gives (a
// folder to write, a file's folder to read, never the home or above it),
// and a server whose settings say its command line grants nothing gets
// none of the folders it names, in any spelling, while its settings'
// folders stay; the flag survives a merge and keeps the settings from
// being empty.
func TestArgGrants(t *testing.T) {
	dir, home := argsHome(t)
	r, w := ArgGrants(home, []string{"~/notes", "--in=" + filepath.Join(home, "papers", "a.txt"), home, "~", "/", dir, "relative", filepath.Join(home, "gone")})
	if !slices.Equal(w, []string{filepath.Join(home, "notes")}) || !slices.Equal(r, []string{filepath.Join(home, "papers")}) {
		t.Errorf("ArgGrants: read %q, write %q", r, w)
	}
	if r, w := ArgGrants("", []string{"/tmp"}); r != nil || w != nil {
		t.Errorf("without a home: %q %q", r, w)
	}

	ssh := filepath.Join(home, ".ssh")
	in := Input{Program: "/usr/bin/npx", Args: []string{"-y", "hostile", "~/.ssh", "--keys=" + ssh, ssh + "/"}, Home: home, DataDir: filepath.Join(dir, "data"),
		Settings: Settings{ArgsGrantNothing: true, Write: []string{"~/notes"}}}
	in.ArgsGrantNothing = in.Settings.ArgsGrantNothing // as conn gives it
	p, err := Default(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range slices.Concat(p.Read, p.Write) {
		if strings.HasPrefix(q, ssh) {
			t.Errorf("%s is given: read %v, write %v", q, p.Read, p.Write)
		}
	}
	if !slices.Contains(p.Write, filepath.Join(home, "notes")) {
		t.Errorf("the setting's folder is not given: %v", p.Write)
	}
	for _, g := range Grants(in) {
		if strings.Contains(g.What, ".ssh") {
			t.Errorf("said: %+v", g)
		}
	}
	s := Settings{ArgsGrantNothing: true}
	if s.Empty() || !(Settings{}).Merge(s).ArgsGrantNothing || !s.Merge(Settings{Read: []string{"/x"}}).ArgsGrantNothing {
		t.Error("ArgsGrantNothing is lost: empty, or not merged")
	}
}

// TestWithheldArgs: for a server whose command the person did not write,
// the folders and files its command names and its policy does not give
// are said, each with the flag that gives it to read (the least); what
// its settings give, and what lies outside the home and is readable
// anyway, are not; a command the person wrote withholds nothing.
func TestWithheldArgs(t *testing.T) {
	withheld := func(in Input) []Withheld {
		t.Helper()
		p, err := Default(in)
		if err != nil {
			t.Fatal(err)
		}
		return WithheldArgs(in, p)
	}
	dir, home := argsHome(t)
	in := Input{Program: "/usr/bin/npx", Home: home, DataDir: filepath.Join(dir, "data"), ArgsGrantNothing: true,
		Args:     []string{"-y", "hostile", "~/.ssh", "--notes=" + filepath.Join(home, "notes"), filepath.Join(home, "papers", "a.txt"), "/usr/share"},
		Settings: Settings{ArgsGrantNothing: true, Write: []string{"~/notes"}}}
	want := []Withheld{
		{What: "~/.ssh", Allow: "--read ~/.ssh", Label: "Let it read ~/.ssh"},
		{What: "~/papers", Allow: "--read ~/papers", Label: "Let it read ~/papers"},
	}
	if got := withheld(in); !slices.Equal(got, want) {
		t.Errorf("withheld:\n got %+v\nwant %+v", got, want)
	}
	in.Settings.Read = []string{"~/papers"}
	if got := withheld(in); !slices.Equal(got, want[:1]) {
		t.Errorf("with ~/papers allowed: %+v", got)
	}
	in.ArgsGrantNothing = false
	if got := withheld(in); got != nil {
		t.Errorf("a command the person wrote: %+v", got)
	}
}

// argsHome is a folder holding a home with ~/.ssh, ~/notes and
// ~/papers/a.txt, the places the command-line tests name.
func argsHome(t *testing.T) (dir, home string) {
	t.Helper()
	dir = t.TempDir()
	home = filepath.Join(dir, "home")
	for _, d := range []string{".ssh", "notes", "papers"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "papers", "a.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, home
}

// TestWordsFromTheLastCheck: what mcptray says of a sandbox comes from the
// last check on this computer: none yet is said; a door that did not hold
// for this kind of server is said plainly, with what to do, and takes
// back what the level says holds; a door that held changes nothing, nor
// one that did not hold for another kind.
func TestWordsFromTheLastCheck(t *testing.T) {
	defer SetLastCheck(LastCheck())
	p := Policy{RestrictTCP: true, Ports: []int{8080}, Namespaces: true}
	base := levelFor(p, 7)

	SetLastCheck(nil)
	if l := withCheck(base, p); !strings.Contains(l.Words, "not yet checked its sandbox on this computer") || !l.Files || !l.Network {
		t.Errorf("no check yet: %+v", l)
	}
	if l := withCheck(Level{Words: wordsOff}, p); l.Words != wordsOff {
		t.Errorf("a server without a sandbox has nothing to prove: %q", l.Words)
	}

	held := Report{Time: time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC), Kernel: "6.18", Kinds: []KindResult{
		{Kind: Kinds[0], Doors: []DoorResult{{Door: "ssh-keys", Area: "files", State: "held"}, {Door: "udp", Area: "network", State: "held"}}},
		{Kind: Kinds[2], Doors: []DoorResult{{Door: "environ", Area: "processes", State: "open", Open: "a server could read other programs' environment"}}},
	}}
	SetLastCheck(&held)
	if l := withCheck(base, p); l != base {
		t.Errorf("every door held for its kind: %+v, want %+v", l, base)
	}

	open := held
	open.Kinds = []KindResult{{Kind: Kinds[0], Doors: []DoorResult{
		{Door: "ssh-keys", Area: "files", State: "open", Open: "a server could read your SSH keys"},
		{Door: "udp", Area: "network", State: "open", Open: "a server could send datagrams anywhere"},
	}}}
	SetLastCheck(&open)
	l := withCheck(base, p)
	for _, w := range []string{"7 Dec 2026", "a server could read your SSH keys and send datagrams anywhere", "run only servers you trust"} {
		if !strings.Contains(l.Words, w) {
			t.Errorf("the words do not say %q: %q", w, l.Words)
		}
	}
	if l.Files || l.Network || l.Isolated {
		t.Errorf("a door that did not hold still counts as protection: %+v", l)
	}
}

// TestCheckSaid: a check is said as its summary, each door that did not
// hold once with the kinds of server it did not hold for, and what to do
// once; a check where every door held is its summary alone.
func TestCheckSaid(t *testing.T) {
	held := Report{Time: time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC), Kernel: "6.18", ABI: 7, Namespaces: true,
		Kinds: []KindResult{{Kind: Kinds[0], Doors: []DoorResult{{Door: "ssh-keys", State: "held"}}}}}
	if got := held.Said(); len(got) != 1 || !strings.HasPrefix(got[0], "Every door held on this computer") {
		t.Errorf("every door held: %q", got)
	}
	open := held
	open.Kinds = []KindResult{
		{Kind: Kinds[0], Doors: []DoorResult{{Door: "environ", Tries: "read another program's environment", State: "open", Open: "a server could read other programs' environment"}}},
		{Kind: Kinds[2], Doors: []DoorResult{{Door: "environ", Tries: "read another program's environment", State: "open", Open: "a server could read other programs' environment"}}},
		{Kind: Kinds[1], Err: "making its sandbox: no home"},
	}
	got := open.Said()
	want := []string{
		"Not every door held on this computer",
		"A server could read other programs' environment (a local server, through mcptray's proxy; a local server while mcptray's proxy is off).",
		"Not tried: making its sandbox: no home (a project's server, through mcptray's proxy).",
		whatToDo + ".",
	}
	if len(got) != len(want) {
		t.Fatalf("said %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
}
