package sandbox

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// Doors are the ways out of its sandbox that mcptray knows a hostile
// server to try, each one case: the check (Check) runs every door that
// applies to a kind of server, in one probe (mcptray sandbox-probe) in a
// sandbox made as that kind of server gets it, and make test runs the
// same check (TestCheckHolds). A new door is one new case here, and,
// when no verb of the probe does what it tries, one new verb (probeTry).
var Doors = []Door{
	{Name: "ssh-keys", Area: "files", Tries: "read your SSH keys (~/.ssh)",
		Try:  func(s *Scene, _ Kind) string { return "read:" + s.SSHKey },
		Open: "a server could read your SSH keys: this system's Landlock did not keep it out of your home"},
	{Name: "other-server", Area: "files", Tries: "read another server's data folder",
		Try:  func(s *Scene, _ Kind) string { return "read:" + s.OtherData },
		Open: "a server could read what another server keeps in its data folder"},
	{Name: "mcptray-config", Area: "files", Tries: "read mcptray's own config",
		Try:  func(s *Scene, _ Kind) string { return "read:" + s.Config },
		Open: "a server could read mcptray's config, with every server's settings"},
	{Name: "control-key", Area: "files", Tries: "read mcptray's control key",
		Try:  func(s *Scene, _ Kind) string { return "read:" + s.ControlKey },
		Open: "a server could read the key that mcptray's own tools use, and act as them"},
	{Name: "home-write", Area: "files", Tries: "write in your home",
		Try:  func(s *Scene, _ Kind) string { return "write:" + filepath.Join(s.Home, ".bashrc") },
		Open: "a server could change the files in your home, ~/.bashrc among them"},
	{Name: "shared-tmp", Area: "files", Tries: "write in /tmp, which every program shares",
		Try: func(s *Scene, _ Kind) string { return "write:" + s.SharedTmp },
		// In namespaces of its own /tmp is its own: what it writes there
		// must not reach the computer's.
		Held: func(s *Scene, _ string) bool { return !exists(s.SharedTmp) },
		Open: "a server could leave files in /tmp for other programs to find"},
	{Name: "npm-cache", Area: "files", Tries: "plant a package in your npm cache (~/.npm)",
		Try:  func(s *Scene, _ Kind) string { return "write:" + filepath.Join(s.Home, ".npm", "_npx", "planted") },
		Open: "a server could plant code in your npm cache, which your own npx runs later outside any sandbox"},
	{Name: "uv-cache", Area: "files", Tries: "plant a package in your uv cache (~/.cache/uv)",
		Try:  func(s *Scene, _ Kind) string { return "write:" + filepath.Join(s.Home, ".cache", "uv", "planted") },
		Open: "a server could plant code in your uv cache, which your own uvx runs later outside any sandbox"},
	// The probe runs with a terminal of its own (Scene.Terminal) as its
	// controlling terminal, as a server started from a terminal would
	// have: without one, /dev/tty is "no such device" whatever the
	// sandbox, which proves nothing. Only Landlock's refusal holds.
	{Name: "tty", Area: "files", Tries: "write to the terminal (/dev/tty)",
		Try: func(s *Scene, _ Kind) string {
			if s.Terminal == "" {
				return ""
			}
			return "write:/dev/tty"
		},
		Held: func(_ *Scene, outcome string) bool { return outcome == "refused" },
		Open: "a server could type into your terminal"},
	{Name: "named-socket", Area: "sockets", Tries: "connect to a named Unix socket (the session bus, ssh-agent, mcptray's control socket)",
		Try:  func(s *Scene, _ Kind) string { return "unix:" + s.Socket },
		Open: "a server could reach other programs' sockets, the session bus and the keyring behind it among them: through them it can do anything you can"},
	{Name: "abstract-socket", Area: "sockets", Tries: "connect to an abstract Unix socket made outside its sandbox",
		Try:  func(s *Scene, _ Kind) string { return "abstract:" + s.Abstract },
		Open: "a server could reach other programs' abstract sockets (X11's, some session services')"},
	{Name: "dgram-sendto", Area: "sockets", Tries: "send to a named datagram socket (journald's, systemd's notify socket) from a socketpair, with sendto",
		Try:  func(s *Scene, _ Kind) string { return "pairsend:" + s.Dgram },
		Open: "a server could send to other programs' datagram sockets through a socketpair, past the filter's socket() rule"},
	{Name: "dgram-sendmsg", Area: "sockets", Tries: "send to a named datagram socket from a socketpair, with sendmsg",
		Try:  func(s *Scene, _ Kind) string { return "pairmsg:" + s.Dgram },
		Open: "a server could send to other programs' datagram sockets through a socketpair, past the filter's socket() rule"},
	{Name: "dgram-connect", Area: "sockets", Tries: "connect a datagram socketpair again, to a named socket",
		Try:  func(s *Scene, _ Kind) string { return "pairconnect:" + s.Dgram },
		Open: "a server could point a socketpair at other programs' datagram sockets"},
	{Name: "stream-pair-connect", Area: "sockets", Tries: "connect a stream socketpair again, to a named socket",
		Try: func(s *Scene, _ Kind) string { return "pairstream:" + s.Socket },
		// "ok" is the kernel's refusal to connect a connected pair.
		Held: func(_ *Scene, outcome string) bool { return outcome == "ok" },
		Open: "a server could point a socketpair at other programs' sockets"},
	{Name: "held-sockets", Area: "sockets", Tries: "use a socket it was handed when it started",
		Try:  func(*Scene, Kind) string { return "fds:" },
		Held: func(_ *Scene, outcome string) bool { return outcome == "ok" },
		Open: "a server started holding a socket of mcptray's, through which it could reach what mcptray reaches"},
	{Name: "io_uring", Area: "sockets", Tries: "use io_uring, which does its work beyond the system call filter",
		Try:  func(*Scene, Kind) string { return "uring:" },
		Open: "a server could use io_uring, whose operations the system call filter does not see"},
	{Name: "keyring", Area: "files", Tries: "use your kernel keyring",
		Try:  func(*Scene, Kind) string { return "keyring:" },
		Open: "a server could use the keys your session keeps in the kernel's keyring"},
	{Name: "environ", Area: "processes", Tries: "read another program's environment (/proc/PID/environ)",
		Try:  func(s *Scene, _ Kind) string { return "read:/proc/" + strconv.Itoa(s.OtherPID) + "/environ" },
		Open: "a server could read other programs' environment, and the tokens in it"},
	{Name: "neighbour-cmdline", Area: "processes", Tries: "read another server's command line, and the secret in its arguments",
		Try: withNeighbour(func(s *Scene) string { return "cmdline:" + hex.EncodeToString([]byte(s.Neighbour)) }),
		Limit: func(_ Kind, namespaces bool) string {
			if namespaces {
				return ""
			}
			return "without namespaces of its own, a server's command line can be read by your other programs and servers, and mcptray's words say so"
		},
		Open: "a server could read other servers' command lines, and the secrets given in their arguments"},
	{Name: "launcher-cmdline", Area: "processes", Tries: "read the secret in another server's arguments from its launcher's command line",
		Try:  withNeighbour(func(s *Scene) string { return "launcher:" + hex.EncodeToString([]byte(s.Neighbour)) }),
		Open: "a server could read what mcptray's launcher runs for other servers, secrets in their arguments among them"},
	{Name: "shared-memory", Area: "files", Tries: "read what another server keeps in shared memory (/dev/shm)",
		Try: func(s *Scene, _ Kind) string {
			if s.NeighbourShm == "" {
				return ""
			}
			return "read:" + s.NeighbourShm
		},
		Open: "a server could read and change what other servers keep in shared memory"},
	{Name: "profile-token", Area: "processes", Tries: "get a token your login shell exports (GITHUB_TOKEN)",
		Try:  func(*Scene, Kind) string { return "env:GITHUB_TOKEN" },
		Open: "a server got a token that your login shell exports, which no config gave it"},
	{Name: "capabilities", Area: "processes", Tries: "keep capabilities (root's powers, when mcptray runs as root)",
		Try:  func(*Scene, Kind) string { return "caps:" },
		Open: "a server kept capabilities, which let it past the rules that bind other programs (other programs' memory and environment, the kernel's settings)"},
	{Name: "detached", Area: "processes", Tries: "leave a program running after it ends (a detached grandchild)",
		Try:  func(s *Scene, _ Kind) string { return "detach:" + s.Marker },
		Held: func(s *Scene, _ string) bool { return s.endLeftBehind() == 0 },
		Open: "a program a server starts could outlive it, out of mcptray's sight"},
	{Name: "udp", Area: "network", Tries: "send a datagram (UDP) past mcptray's proxy",
		Try:  withProxy(func(s *Scene) string { return "udp:" + s.UDP }),
		Open: "a server could send datagrams anywhere, past mcptray's proxy (DNS to a server of its own, say)"},
	{Name: "other-port", Area: "network", Tries: "connect to a port other than the proxy's",
		Try:  withProxy(func(s *Scene) string { return "connect:" + strconv.Itoa(s.RefusedPort) }),
		Open: "a server could connect past mcptray's proxy, to programs on this computer and beyond"},
	{Name: "proxy-elsewhere", Area: "network", Tries: "connect to the proxy's port at another address of this computer",
		Try: func(s *Scene, k Kind) string {
			if !k.Proxy || s.Elsewhere == "" {
				return ""
			}
			return "tcp:" + s.Elsewhere
		},
		Limit: func(_ Kind, namespaces bool) string {
			if namespaces {
				return ""
			}
			return "without a network of its own, Landlock limits a port, not an address: a program listening at the proxy's port on another address could be reached, and mcptray's words say so"
		},
		Open: "a server could reach a program listening at the proxy's port on another address"},
	// What a server must be able to do, or the check proves nothing (a
	// probe that did not run refuses everything).
	{Name: "own-folder", Area: "works", Must: true, Tries: "write in its own data folder",
		Try:  func(s *Scene, _ Kind) string { return "write:" + filepath.Join(s.Data, "memory.jsonl") },
		Open: "a server could not write in its own data folder: servers that keep anything fail"},
	{Name: "own-tmp", Area: "works", Must: true, Tries: "write in its own temporary folder",
		Try:  func(s *Scene, _ Kind) string { return "write:" + filepath.Join(s.Data, "tmp", "scratch") },
		Open: "a server could not write in its own temporary folder"},
	{Name: "project", Area: "works", Must: true, Tries: "change its project's files",
		Try: func(s *Scene, k Kind) string {
			if !k.Project {
				return ""
			}
			return "write:" + filepath.Join(s.Project, "out")
		},
		Open: "a project's server could not change its project"},
	{Name: "stream-pair", Area: "works", Must: true, Tries: "make a stream socketpair, as runtimes make their children's pipes",
		Try:  func(*Scene, Kind) string { return "pair:stream" },
		Open: "a server could not make a socketpair: node and python cannot start programs of their own"},
	{Name: "proxy", Area: "works", Must: true, Tries: "reach mcptray's proxy",
		Try:  withProxy(func(s *Scene) string { return "connect:" + strconv.Itoa(s.ProxyPort) }),
		Open: "a server could not reach mcptray's proxy: its web requests fail"},
}

// Door is one way out of a sandbox and how to tell that it held.
type Door struct {
	// Name is short and stable: what --json and the record say.
	Name string `json:"name"`
	// Area is what the door is a way to: "files", "sockets", "network",
	// "processes"; "works" for what a server must be able to do (Must).
	Area string `json:"area"`
	// Tries says what the hostile server tries: "read your SSH keys
	// (~/.ssh)".
	Tries string `json:"tries"`
	// Try is the probe's try in scene s for a server of kind k
	// ("read:/…", see probeTry); "" when the door is not one for k (UDP
	// with no proxy: its network is open, and the words say so).
	Try func(s *Scene, k Kind) string `json:"-"`
	// Held says whether the door held, given the probe's outcome; nil
	// means that the probe did not get through ("ok") and nothing outside
	// was reached (Scene.Reached).
	Held func(s *Scene, outcome string) bool `json:"-"`
	// Must says that the try must succeed instead: what a server needs.
	Must bool `json:"must,omitempty"`
	// Limit, when it says something for a kind and mode, is what mcptray
	// already says is left open there: the door not holding is no failure.
	Limit func(k Kind, namespaces bool) string `json:"-"`
	// Open says in plain words what a server could do when it did not
	// hold.
	Open string `json:"open"`
}

// Kind is a kind of server, as the check makes its sandbox.
type Kind struct {
	Name  string `json:"name"`
	Words string `json:"words"`
	// Project: a project's server, which may change its project folder.
	Project bool `json:"project,omitempty"`
	// Proxy: mcptray's egress proxy runs, and the server's network goes
	// through it.
	Proxy bool `json:"proxy,omitempty"`
}

// Kinds are the kinds of local server the check tries.
var Kinds = []Kind{
	{Name: "local", Words: "A local server, through mcptray's proxy", Proxy: true},
	{Name: "project", Words: "A project's server, through mcptray's proxy", Project: true, Proxy: true},
	{Name: "no-proxy", Words: "A local server while mcptray's proxy is off"},
}

// Scene is the place the check makes for its probe: a home with secrets
// in it, as a person's is, another server's data, listeners that no
// server may reach.
type Scene struct {
	Root, Home, Data, Project string
	SSHKey, OtherData, Config string
	ControlKey, SharedTmp     string
	// Socket is a named socket in the server's own data folder (where
	// Landlock alone would let it connect); Abstract an abstract one's
	// name.
	Socket, Abstract string
	// Dgram is a named datagram socket in the server's own data folder,
	// standing for journald's and systemd's notify socket.
	Dgram string
	// UDP is a UDP listener's address; RefusedPort a TCP port on
	// 127.0.0.1 no server may reach; ProxyPort the proxy's (mcptray's
	// own, CheckOptions.Proxy, or a stand-in that answers by closing);
	// Elsewhere a listener at the proxy's port
	// on another address, "" when none could be made.
	UDP                    string
	RefusedPort, ProxyPort int
	Elsewhere              string
	// Neighbour is the secret in the arguments of another server that
	// runs in a sandbox of its own while the probe runs, and
	// NeighbourShm the file it made in its shared memory; "" when it
	// could not be started.
	Neighbour, NeighbourShm string
	// OtherPID is a process outside the sandbox (mcptray's own, with the
	// person's environment); Marker names the grandchild the probe
	// leaves.
	OtherPID int
	Marker   string
	// Terminal is the pseudo-terminal the probe has as its controlling
	// terminal (/dev/pts/N), "" when none could be made.
	Terminal string
	tty      *os.File // its other end, the probe's stdin
	// serve serves the proxy (or its stand-in) in a server's own
	// network.
	serve func(net.Listener)

	reached map[string]int
	closers []func()
	// settle counts what reached the scene's listeners once the probe
	// has ended.
	settle func()
}

// DoorResult is what one door did.
type DoorResult struct {
	Door  string `json:"door"`
	Area  string `json:"area"`
	Tries string `json:"tries"`
	// State is "held", "open" (it did not hold), "limit" (open, as the
	// words say), "works" (a Must that worked) or "broken" (a Must that
	// did not).
	State string `json:"state"`
	// Outcome is the probe's: "ok", "refused", "failed: WHY".
	Outcome string `json:"outcome"`
	// Open says what a server could do, when the door did not hold (or
	// a Must did not work); Words say it plainly with what to do, or say
	// the limit.
	Open  string `json:"open,omitempty"`
	Words string `json:"words,omitempty"`
}

// KindResult is what the doors did for one kind of server.
type KindResult struct {
	Kind  Kind   `json:"kind"`
	Level string `json:"level"` // what mcptray says of such a server's sandbox
	// Err is why its probe could not be run, when it could not.
	Err   string       `json:"err,omitempty"`
	Doors []DoorResult `json:"doors"`
}

// Held reports whether every door held for k (limits aside) and every
// Must worked.
func (k KindResult) Held() bool {
	if k.Err != "" {
		return false
	}
	for _, d := range k.Doors {
		if d.State == "open" || d.State == "broken" {
			return false
		}
	}
	return true
}

// whatToDo follows a door that did not hold.
const whatToDo = "Until it holds, run only servers you trust; check again after a kernel or mcptray update (mcptray sandbox check), and tell mcptray's developers what mcptray sandbox check --json says"

func (d Door) judge(s *Scene, k Kind, namespaces bool, outcome string) DoorResult {
	r := DoorResult{Door: d.Name, Area: d.Area, Tries: d.Tries, Outcome: outcome}
	held := outcome != "ok" && s.reached[d.Name] == 0
	if d.Held != nil {
		held = d.Held(s, outcome)
	}
	switch {
	case d.Must && outcome == "ok":
		r.State = "works"
	case d.Must:
		r.State, r.Open, r.Words = "broken", d.Open, fmt.Sprintf("%s (%s). The sandbox is not as mcptray made it: tell mcptray's developers what mcptray sandbox check --json says", d.Open, outcome)
	case held:
		r.State = "held"
	case d.Limit != nil && d.Limit(k, namespaces) != "":
		r.State, r.Words = "limit", d.Limit(k, namespaces)
	default:
		r.State, r.Open, r.Words = "open", d.Open, d.Open+". "+whatToDo
	}
	return r
}

// exists reports whether something is at path (a link counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// withProxy is a door's try for the kinds of server whose network goes
// through mcptray's proxy alone; the others' network is open, as their
// words say.
func withProxy(try func(s *Scene) string) func(*Scene, Kind) string {
	return func(s *Scene, k Kind) string {
		if !k.Proxy {
			return ""
		}
		return try(s)
	}
}

// withNeighbour is a door's try on the scene's neighbour server, left out
// when it could not be started.
func withNeighbour(try func(s *Scene) string) func(*Scene, Kind) string {
	return func(s *Scene, _ Kind) string {
		if s.Neighbour == "" {
			return ""
		}
		return try(s)
	}
}
