package conn

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/transport"
)

// Sandboxed reports whether a stdio server s runs in a sandbox under o:
// on Linux and macOS, when o has a launcher and a folder for the servers'
// data, unless the person turned it off.
func (o *Options) Sandboxed(s *config.Server) bool {
	return s.Transport == config.Stdio && runtime.GOOS != "windows" && o.Launcher != "" && o.ServersDir != "" && !s.Sandbox.Off
}

// SandboxInput is what sandbox.Default needs for s, with the program at
// program and the environment env; the egress proxy's port and variables
// come from o.Egress.
func (o *Options) SandboxInput(s *config.Server, program string, env []string) sandbox.Input {
	home, _ := os.UserHomeDir()
	if o.Home != "" {
		home = o.Home
	}
	in := sandbox.Input{
		Program: program, Args: s.Args, Env: env, Home: home,
		DataDir:    filepath.Join(o.ServersDir, sandbox.FolderName(s.Name)),
		ProjectDir: s.Origin.Folder, Dir: s.Cwd, Settings: s.Sandbox,
		Namespaces: sandbox.Isolation(o.Launcher),
		// A bundle's command is its manifest's, not the person's; a
		// registry install's is its publisher's (its settings say so,
		// and give what the person typed).
		ArgsGrantNothing: s.Bundle != nil || s.Sandbox.ArgsGrantNothing,
	}
	if o.Egress != nil {
		in.EgressPort, in.EgressEnv = o.Egress(s.Name)
	}
	if o.Others != nil {
		in.OthersWrite = o.Others(s.Name)
	}
	return in
}

// Protection says how well s is protected under o, in words too.
func (o *Options) Protection(s *config.Server, p sandbox.Policy) sandbox.Level {
	switch {
	case s.Sandbox.Off:
		return sandbox.Off(true)
	case runtime.GOOS == "windows":
		return sandbox.Protection(p) // none, and its words say why
	case !o.Sandboxed(s):
		return sandbox.Off(false)
	}
	return sandbox.Protection(p)
}

// stdioSandbox is the transport's sandbox for s, or nil when it runs
// without one.
func (m *Manager) stdioSandbox(s *config.Server) *transport.Sandbox {
	if !m.opts.Sandboxed(s) {
		return nil
	}
	return &transport.Sandbox{
		Launcher: m.opts.Launcher,
		Bridge:   m.opts.EgressServe,
		Policy: func(path string, env []string) (sandbox.Policy, error) {
			p, err := sandbox.Default(m.opts.SandboxInput(s, path, env))
			if m.opts.ReadOnlyProject {
				p = readOnlyAround(p, s.Origin.Folder)
			}
			if err == nil {
				err = p.Prepare()
			}
			if err == nil {
				m.opts.Logger.Info("starting in its sandbox", "server", s.Name, "protection", sandbox.Protection(p).Words)
			}
			return p, err
		},
	}
}

// readOnlyAround makes what p may write in dir, or around it (a folder
// that holds it), readable only: dir's files can then be read, not
// changed.
func readOnlyAround(p sandbox.Policy, dir string) sandbox.Policy {
	if dir == "" {
		return p
	}
	dir = filepath.Clean(dir)
	inside := func(parent, child string) bool {
		rel, err := filepath.Rel(parent, child)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	write := p.Write[:0:0]
	for _, w := range p.Write {
		if inside(dir, w) || inside(w, dir) {
			p.Read = append(slices.Clip(p.Read), w)
			continue
		}
		write = append(write, w)
	}
	p.Write = write
	return p
}
