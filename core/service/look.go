package service

import (
	"context"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// A look at an unapproved server's tools: a project server's tools are
// only known once it runs, and it runs only once approved, so the
// approval dialog could not say what its tools tell the AI. LookAtTools
// runs it once, locked down, lists its tools and prompts, reads them for
// hidden instructions and stops it. Approving it right after pins what the
// person saw (trust.Keeper.PinLook): if its tools at its first real start differ, they
// are held as changes.
//
// Locked down: its default sandbox (none of what its own entry asks for),
// its project folder to read only, a fresh data folder removed after, and
// the network only to what it declares (its runtime's package registry)
// through the egress proxy, anything else refused without a question. It
// never runs without a sandbox: where there is none, the look is refused.

// LookTimeout bounds a look, from start to its tools listed: the time a
// real start gets for its handshake (conn.DefaultConnectTimeout), which is
// enough for npx or uvx to fetch a small package; longer keeps the person
// waiting at a dialog for a server that will not answer.
const LookTimeout = conn.DefaultConnectTimeout

// Look is what a server waiting for approval showed of itself when
// mcptray ran it once in its sandbox.
type Look struct {
	Server  string       `json:"server"`
	Tools   []tools.Tool `json:"tools"`
	Prompts []mcp.Prompt `json:"prompts,omitempty"`
	// Flags are the tools whose definitions read as orders to the AI, by
	// the tool's name.
	Flags map[string][]pins.Flag `json:"flags,omitempty"`
	// Network are the connections it tried that were refused.
	Network []egress.Refusal `json:"network,omitempty"`
	// Protection is how well its sandbox held it.
	Protection sandbox.Level `json:"protection"`
	At         time.Time     `json:"at"`
	// Package is the npm package it runs, pinned by its content: what
	// approving it runs (packages.go); nil for a server that runs none.
	Package *PackageView `json:"package,omitempty"`
	// Changes are how its tools differ from those pinned when it last ran,
	// for a server approved before whose config changed since (what it
	// runs, a newer package): the tools added, removed and changed, in
	// words, as an update's trial says them (trial.go). Approving it keeps
	// them held until accepted. Nil for a server never seen before.
	Changes []ToolChange `json:"changes,omitempty"`
}

// Flagged reports whether the tool called name reads as instructions to
// the AI.
func (l *Look) Flagged(name string) bool { return l != nil && len(l.Flags[name]) > 0 }

// lookTimeout is LookTimeout, or the service's connect timeout when it is
// shorter (tests).
func (s *Service) lookTimeout() time.Duration {
	if c := s.opts.Conn.ConnectTimeout; c > 0 && c < LookTimeout {
		return c
	}
	return LookTimeout
}

// errNoSandboxLook is the refusal where no sandbox can hold the server.
const errNoSandboxLook = "mcptray can only look at a server's tools in its sandbox, which this system lacks; approve it to see them"

// LookAtTools runs a server that waits for approval once, in its sandbox
// locked down, and returns its tools and prompts and what reads as orders
// in them. Nothing is approved; the server still waits.
func (s *Service) LookAtTools(ctx context.Context, name string) (Look, error) {
	if err := s.checkOpen(); err != nil {
		return Look{}, err
	}
	e, err := s.find(s.current(), name)
	if err != nil {
		return Look{}, err
	}
	n := sanitize.Line(e.Name)
	switch {
	case e.Approval != config.Undecided:
		return Look{}, newError(NotAllowed, "%s is not waiting for your approval: `mcptray tools %s` lists the tools of a server that runs", n, n)
	case e.Transport != config.Stdio:
		return Look{}, newError(NotAllowed, "%s runs elsewhere (%s): mcptray can only look at a local server's tools, in its sandbox; approve it to see them", n, e.Transport)
	case e.Sandbox.Off:
		return Look{}, newError(NotAllowed, "%s's sandbox is off: %s", n, errNoSandboxLook)
	}
	entry := *e
	// Its default policy: none of what its entry asks for, and the folders
	// its command line names still not given when they are not the
	// person's.
	entry.Sandbox = sandbox.Settings{ArgsGrantNothing: e.Sandbox.ArgsGrantNothing}
	entry.Approval = config.Approved
	key, endLook, ok := s.net.StartLook(e.Name)
	if !ok {
		return Look{}, newError(NotAllowed, "mcptray is looking at %s's tools already", n)
	}
	defer endLook()
	// What it would run is pinned now, and the look runs that: approving
	// it after runs what was looked at (packages.go).
	pkg, err := s.pinNow(ctx, e)
	if err != nil {
		return Look{}, err
	}
	if pkg != nil {
		if err := s.runPinned(&entry, *pkg); err != nil {
			return Look{}, wrapError(err)
		}
	}

	o := s.sandboxOpts()
	o.ReadOnlyProject = true
	if o.Egress != nil {
		o.Egress = s.egressPort
	}
	env := s.opts.Conn.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	p, _ := sandbox.Default(o.SandboxInput(&entry.Server, entry.Command, env))
	level := o.Protection(&entry.Server, p)
	if !level.Files {
		return Look{}, newError(NotAllowed, "%s", errNoSandboxLook)
	}
	if err := os.MkdirAll(o.ServersDir, 0o700); err != nil {
		return Look{}, newError(Other, "making the servers' folder: %v", err)
	}
	dir, err := os.MkdirTemp(o.ServersDir, ".look-")
	if err != nil {
		return Look{}, newError(Other, "making a folder for the look: %v", err)
	}
	defer os.RemoveAll(dir)

	timeout := s.lookTimeout()
	m := s.newConns(s.log.With("look", n), func(co *conn.Options) {
		co.ServersDir, co.ReadOnlyProject, co.HistoryFile = dir, true, ""
		// The look's own deadline ends it first, in its words; no restart
		// within it.
		co.ConnectTimeout = timeout + 5*time.Second
		co.MinBackoff, co.MaxBackoff = time.Hour, time.Hour
		if s.egress != nil {
			co.Egress = func(string) (int, map[string]string) { return s.egress.Port(), s.egress.Env(key) }
		}
	})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		m.Close()
		return Look{}, conn.ErrClosed
	}
	s.adhoc[m] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.closeAdhoc(m) // waits until its process is gone
		if s.egress != nil {
			s.egress.Forget(key)
		}
	}()

	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := m.Apply(&config.Set{Servers: []config.Entry{entry}}); err != nil {
		return Look{}, wrapError(err)
	}
	var list []tools.Tool
	err = s.waitConnected(lctx, m, e.Name)
	if err == nil {
		list, err = m.Tools(e.Name)
	}
	if err != nil {
		if ctx.Err() == nil && lctx.Err() != nil {
			return Look{}, newError(Other, "%s did not start and list its tools within %s; mcptray stopped it. Approve it only if you trust what it runs", n, timeout)
		}
		if ctx.Err() != nil {
			return Look{}, ctx.Err()
		}
		return Look{}, newError(Other, "%s did not start in its sandbox to show its tools: %v", n, sanitize.Line(err.Error()))
	}
	prompts, perr := m.Prompts(lctx, e.Name) // a server may have none
	var refused []egress.Refusal
	if s.egress != nil {
		refused = s.egress.Refusals(key)
	}

	// Other servers' tool names, for shadowing, as the pins read them.
	owners := map[string]bool{}
	for _, i := range s.conns.Report().Servers {
		if i.Name != e.Name {
			for _, t := range i.Tools {
				owners[t.Name] = true
			}
		}
	}
	others := func(t string) bool { return owners[t] }
	l := Look{Server: e.Name, Tools: list, Prompts: prompts, Network: refused, Protection: level, At: s.opts.Now()}
	if pkg != nil {
		l.Package = s.packageView(ctx, &e.Server, *pkg)
	}
	// Kept until the approval, which pins it (trust.Keeper.PinLook); the
	// network policy knows which look runs (netpolicy.Policy.StartLook).
	l.Flags = s.trust.Looked(e.Name, e.Signature, list, prompts, perr == nil, others)
	l.Changes = s.lookChanges(e.Name, list, others)
	s.log.Info("looked at a server's tools before approval", "server", e.Name, "tools", len(list), "flagged", len(l.Flags))
	return l, nil
}

// closeAdhoc stops an ad-hoc manager's servers, waiting until their
// processes are gone, and forgets it.
func (s *Service) closeAdhoc(m *conn.Manager) {
	s.mu.Lock()
	delete(s.adhoc, m)
	s.mu.Unlock()
	m.Close()
}
