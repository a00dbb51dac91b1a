package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Grant is one thing a server may do beyond running its program, as the
// approval dialog and the server's detail list it.
type Grant struct {
	// Kind is "project", "folder" (named on its command line), "read",
	// "write", "host", "port" or "sockets".
	Kind string `json:"kind"`
	// What is the folder (with ~ for the home), host or port.
	What string `json:"what"`
	// Words says it: "read and change this project folder (~/code/app)".
	Words string `json:"words"`
	// Deny is what takes it back in mcptray sandbox deny SERVER …
	// ("--read ~/Documents", in its one spelling, whichever the setting
	// keeps: any spelling takes it back); "" for what comes with the server's own
	// configuration (its project, the folders it names, what its entry
	// asks for), which changes there.
	Deny string `json:"deny,omitempty"`
	// Setting is the person's setting that gives it, as kept (the folder
	// as written, the host, the port; "" for sockets), beside Kind: what a
	// change that takes it back names. It is set whenever Deny is.
	Setting string `json:"setting,omitempty"`
	// AskedBy is the config file whose entry for the server asks for it
	// (mcptray's key in a project's .mcp.json), or "": it is taken back
	// by editing that file, and a project's server is then approved
	// again (MarkAsked).
	AskedBy string `json:"askedBy,omitempty"`
}

// MarkAsked marks the grants that asked, what a server's own entry in
// file asks for, gives: they cannot be denied (Deny is "") but change in
// file. A grant the person allowed too stays the file's: taking back the
// person's part would change nothing.
func MarkAsked(grants []Grant, asked Settings, file string) []Grant {
	if asked.Empty() {
		return grants
	}
	asks := func(g Grant) bool {
		switch g.Kind {
		case "read":
			return slices.Contains(asked.Read, g.Setting)
		case "write":
			return slices.Contains(asked.Write, g.Setting)
		case "host":
			return slices.Contains(asked.Hosts, g.Setting)
		case "port":
			return slices.Contains(asked.Ports, atoi(g.Setting))
		case "sockets":
			return asked.Sockets
		}
		return false
	}
	out := slices.Clone(grants)
	for i, g := range out {
		if g.Deny != "" && asks(g) {
			out[i].Deny, out[i].Setting, out[i].AskedBy = "", "", file
		}
	}
	return out
}

// atoi is s as a number, or -1.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// Grants lists what in gives a server beyond its program, its runtime and
// its own data folder: its project, the folders named on its command line,
// and the settings' folders, hosts and ports.
func Grants(in Input) []Grant {
	home := filepath.Clean(in.Home)
	short := func(p string) string { return Tilde(home, p) }
	var out []Grant
	if in.ProjectDir != "" {
		out = append(out, Grant{Kind: "project", What: short(in.ProjectDir), Words: "read and change this project folder (" + short(in.ProjectDir) + ")"})
	}
	b := &builder{home: home}
	b.commandArgs(in)
	readOnly := readOnlyArgs(b, in.Settings) // said among the settings' reads
	for _, d := range b.w {
		if d != in.ProjectDir && !slices.Contains(readOnly, d) {
			out = append(out, Grant{Kind: "folder", What: short(d), Words: "read and change " + short(d) + ", named in its command"})
		}
	}
	// A folder kept in two spellings (an old config's $HOME/x beside
	// ~/x) is one grant, said once, in its one spelling.
	seen := map[string]bool{}
	// Said as Default gives it: not resolved through a link in what the
	// server may write (grantIn).
	writable := append(slices.Clone(b.w), in.ProjectDir, in.DataDir)
	for _, d := range in.Settings.Write {
		if e, err := expandGrant(home, d); err == nil {
			writable = append(writable, e)
		}
	}
	one := func(kind, d string) (string, bool) {
		full, err := grantIn(home, d, writable)
		if err != nil {
			full = b.expand(d)
		}
		if seen[kind+full] {
			return "", false
		}
		seen[kind+full] = true
		return short(full), true
	}
	for _, d := range in.Settings.Write {
		if p, ok := one("w", d); ok {
			out = append(out, Grant{Kind: "write", What: p, Words: "read and change " + p, Deny: "--write " + quoteArg(p), Setting: d})
		}
	}
	for _, d := range in.Settings.Read {
		if p, ok := one("r", d); ok {
			out = append(out, Grant{Kind: "read", What: p, Words: "read " + p, Deny: "--read " + quoteArg(p), Setting: d})
		}
	}
	for _, h := range in.Settings.Hosts {
		out = append(out, Grant{Kind: "host", What: h, Words: "reach " + h, Deny: "--host " + h, Setting: h})
	}
	for _, p := range in.Settings.Ports {
		out = append(out, Grant{Kind: "port", What: strconv.Itoa(p), Words: fmt.Sprintf("connect to port %d", p), Deny: "--port " + strconv.Itoa(p), Setting: strconv.Itoa(p)})
	}
	if in.Settings.Sockets {
		out = append(out, Grant{Kind: "sockets", What: "other programs' sockets", Words: SocketsWords, Deny: "--sockets"})
	}
	return out
}

// SocketsWords says what the sockets grant gives.
const SocketsWords = "use other programs' sockets (the session bus and the keyring behind it, ssh-agent, Docker's), through which it can do anything you can on this computer"

// Describe says in a few sentences what a server with these grants may do
// under l: "It may read and change this project folder (~/code/app) and
// reach api.github.com. Nothing else in your home." Each sentence about
// the network holds on this computer (l says what does).
func Describe(grants []Grant, l Level) string {
	var may []string
	for _, g := range grants {
		if g.Kind == "host" && !l.Network {
			continue
		}
		may = append(may, g.Words)
	}
	var b strings.Builder
	if len(may) == 0 {
		b.WriteString("It may run its program and use its own data folder.")
	} else {
		b.WriteString("It may " + list(may) + ".")
	}
	b.WriteString(" Nothing else in your home.")
	hosts := slices.ContainsFunc(grants, func(g Grant) bool { return g.Kind == "host" })
	switch {
	case !l.Network:
		b.WriteString(" It may connect anywhere on the network.")
	case l.Isolated && !hosts:
		b.WriteString(" It reaches the network only through mcptray, which asks you about each new host.")
	case l.Isolated:
		b.WriteString(" It reaches the network only through mcptray.")
	default:
		b.WriteString(" It reaches the network through mcptray, which asks you about each new host, but this system does not let mcptray give it a network of its own: a program on this computer listening at mcptray's port on another address could be reached.")
	}
	return b.String()
}

// list joins items as a person would: "a", "a and b", "a, b and c".
func list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Tilde writes p with ~ for the home.
func Tilde(home, p string) string {
	if home == "" || !filepath.IsAbs(p) {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~/" + rest
	}
	return p
}

// quoteArg quotes a path for a shell when it needs it.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}!#") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
