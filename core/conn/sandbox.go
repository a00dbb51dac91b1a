package conn

import (
	"os"
	"path/filepath"
	"runtime"

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
	}
	if o.Egress != nil {
		in.EgressPort, in.EgressEnv = o.Egress(s.Name)
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
		Policy: func(path string, env []string) (sandbox.Policy, error) {
			p, err := sandbox.Default(m.opts.SandboxInput(s, path, env))
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
