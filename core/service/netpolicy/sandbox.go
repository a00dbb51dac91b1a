package netpolicy

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
)

// The sandbox's settings: what the person lets each local server do
// beyond its default policy, kept in mcptray's config file.

// Change is one change to a server's sandbox: a folder to read or
// write, a host or a port, allowed or taken back.
type Change struct {
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
// own entry asks for is taken back in that entry, not here. e is the
// server's entry in set, the config in use; home is the person's home,
// and writable gives the folders its sandbox lets it write now.
func (p *Policy) ChangeSandbox(ctx context.Context, set *config.Set, e *config.Entry, c Change, home string, writable func() []string) error {
	if e.Transport != config.Stdio {
		return invalid("%s runs elsewhere (%s): only local servers run in a sandbox", sanitize.Line(e.Name), e.Transport)
	}
	n := 0
	for _, v := range []bool{c.Read != "", c.Write != "", c.Host != "", c.Port != 0, c.Sockets} {
		if v {
			n++
		}
	}
	if n != 1 {
		return invalid("say one thing to allow or deny: --read PATH, --write PATH, --host HOST, --port N or --sockets")
	}
	// A path is kept in its one spelling (sandbox.GrantPath), with ~ for
	// the home: given as ~/x, $HOME/x, /home/ann/x/ or through a symlink,
	// it is one grant, and taken back in any of them.
	var path string
	if c.Read+c.Write != "" {
		// Not resolved through a link in what the server may write: the
		// link may be its own, leading where the person did not say.
		full, err := sandbox.GrantPathIn(home, c.Read+c.Write, writable())
		if err != nil {
			return invalid("%s", sanitize.Line(err.Error()))
		}
		path = sandbox.Tilde(filepath.Clean(home), full)
	}
	if c.Port < 0 || c.Port > 65535 {
		return invalid("%d is not a TCP port (1 to 65535)", c.Port)
	}
	host := c.Host
	if c.Host != "" {
		var err error
		if host, err = egress.NormalHost(c.Host); err != nil {
			return invalid("%q is not a host; give one such as api.github.com, *.github.com or localhost:5432", sanitize.Line(c.Host))
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
	err := config.ModifySandbox(p.opts.UserFile, e.Name, func(st *sandbox.Settings) {
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
		return err
	}
	if c.Allow {
		p.record(ctx, "", activity.SandboxAllowance, e.Name, sandboxWords(c, path, host))
	}
	p.reload()
	return nil
}

// askedInFile refuses to take back what e's own entry asks for in its
// file: it would change nothing, as the file still asks. The error says
// where it is asked for and how to change it. home expands a leading ~.
func askedInFile(e *config.Entry, c Change, path, host, home string) error {
	ask := e.SandboxAsk
	both := slices.Concat(ask.Read, ask.Write) // reading what it may change is asked for too
	ask.Read, ask.Write = both, both
	if !gives(ask, c, path, host, home) {
		return nil
	}
	return notAllowedError("%s may %s because %s asks for it, so mcptray cannot take it back. To change that, %s",
		sanitize.Line(e.Name), sandboxWords(c, path, host), WhoseFile(e), AskedChange(e, home))
}

// notAllowed refuses to take back what the person never allowed e
// (mine, their settings for it): it would change nothing. What it
// declares (the registry its runtime installs from) is said so.
func notAllowed(e *config.Entry, mine sandbox.Settings, c Change, path, host, home string) error {
	if gives(mine, c, path, host, home) {
		return nil
	}
	name, what := sanitize.Line(e.Name), sandboxWords(c, path, host)
	if c.Read != "" && gives(mine, Change{Write: path}, path, host, home) {
		return invalid("%s may read and change %s: mcptray sandbox deny %s --write %s takes that back.", name, sanitize.Line(path), name, sanitize.Line(path))
	}
	if c.Host != "" && slices.Contains(egress.Declared(e.Command, e.Args, nil), host) {
		return notAllowedError("%s may %s because its runtime installs its packages from there, so mcptray cannot take it back.", name, what)
	}
	return invalid("You did not let %s %s, so there is nothing to take back; mcptray sandbox %s lists what it may do.", name, what, name)
}

// gives reports whether st has the item c names (path and host as
// ChangeSandbox tidied them), a path in any spelling (samePath).
func gives(st sandbox.Settings, c Change, path, host, home string) bool {
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

// WhoseFile is e's file in words: "its project's file".
func WhoseFile(e *config.Entry) string {
	if e.Scope.NeedsApproval() {
		return "its project's file"
	}
	return "its config file"
}

// AskedChange ends "To take back what its entry asks for, …": how the
// person changes what e's entry asks of its sandbox. home shortens the
// file's path.
func AskedChange(e *config.Entry, home string) string {
	name := sanitize.Line(e.Name)
	then := "mcptray restarts " + name + " when the file changes."
	if e.Scope.NeedsApproval() {
		then = "approve " + name + " again: a file cannot change what its server may do without your approval."
	}
	return "edit the \"mcptray\": {\"sandbox\": …} part of " + name + "'s entry in " + WhoseFile(e) + " (" + sanitize.Line(sandbox.Tilde(home, e.Origin.File)) + "), then " + then
}

// sandboxWords says what an allowance lets a server do, after "you let
// SERVER ".
func sandboxWords(c Change, path, host string) string {
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

// SetSandbox turns e's server's sandbox on or off; off, it runs with
// every right the person has.
func (p *Policy) SetSandbox(ctx context.Context, e *config.Entry, on bool) error {
	if e.Transport != config.Stdio {
		return invalid("%s runs elsewhere (%s): only local servers run in a sandbox", sanitize.Line(e.Name), e.Transport)
	}
	if err := config.ModifySandbox(p.opts.UserFile, e.Name, func(st *sandbox.Settings) { st.Off = !on }); err != nil {
		return err
	}
	if !on {
		p.record(ctx, "", activity.SandboxAllowance, e.Name, "run without a sandbox")
	}
	p.reload()
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
