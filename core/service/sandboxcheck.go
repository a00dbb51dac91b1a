package service

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// The sandbox's check (sandbox.Check) proves on this computer what mcptray
// says of its sandboxes: the running mcptray runs it at its first start
// and whenever the kernel or mcptray changed since the last one, and the
// person runs it from Settings or with mcptray sandbox check. The last one
// is kept in mcptray's folder (sandbox.CheckFile), with the kernel,
// mcptray's version and the time, and what mcptray says of a sandbox
// (sandbox.Protection) comes from it. The activity record keeps each.

// checkVersion is mcptray's version as the check keeps it: with the
// source revision of a build from git, so that a new build checks again.
func checkVersion() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			switch {
			case st.Key == "vcs.revision" && len(st.Value) >= 12:
				v += "+" + st.Value[:12]
			case st.Key == "vcs.modified" && st.Value == "true":
				v += "-modified"
			}
		}
	}
	return v
}

func (s *Service) sandboxCheckFile() string { return sandbox.CheckFile(s.opts.Paths.Dir()) }

// loadSandboxCheck makes the last check kept what mcptray says of every
// sandbox.
func (s *Service) loadSandboxCheck() {
	r, err := sandbox.ReadCheck(s.sandboxCheckFile())
	if err != nil {
		s.log.Warn("the last sandbox check cannot be read; mcptray checks again", "err", err)
	}
	sandbox.SetLastCheck(r)
}

// checkAfterStartsWithin is how long the check at a start waits for the
// servers' first starts before it runs anyway.
const checkAfterStartsWithin = time.Minute

// checkSandboxWhenChanged checks the sandbox when no check was kept, or the
// kernel or mcptray changed since the last one. It waits for the servers'
// first starts to settle (a minute at most): its probes and neighbour
// servers would otherwise take the CPU those starts need.
func (s *Service) checkSandboxWhenChanged(ctx context.Context) {
	if len(s.opts.SandboxProbe) == 0 || !sandbox.Stale(sandbox.LastCheck(), checkVersion()) {
		return
	}
	settle, cancel := context.WithTimeout(ctx, checkAfterStartsWithin)
	err := s.conns.WaitSettled(settle)
	cancel()
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		s.log.Info("checking the sandbox while some servers are still starting", "err", err)
	}
	ctx = DecidedBy(ctx, "mcptray at its start (no check yet on this kernel and mcptray)")
	if _, err := s.CheckSandbox(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("checking the sandbox", "err", err)
	}
}

// CheckSandbox runs the sandbox's check on this computer: mcptray's
// hostile probe in a real sandbox made as each kind of local server gets
// it, through the servers' launcher. It keeps the result as the last
// check, which what mcptray says of every sandbox then comes from, and
// records it.
func (s *Service) CheckSandbox(ctx context.Context) (sandbox.Report, error) {
	if err := s.checkOpen(); err != nil {
		return sandbox.Report{}, err
	}
	s.checkMu.Lock()
	defer s.checkMu.Unlock()
	o := s.sandboxOpts()
	r, err := sandbox.Check(ctx, sandbox.CheckOptions{
		Launcher: o.Launcher, Probe: s.opts.SandboxProbe, Version: checkVersion(),
		Input: func(k sandbox.Kind, in sandbox.Input) sandbox.Input { return checkInput(o.Launcher, in) },
		Proxy: s.checkProxy(),
	})
	if err != nil {
		return r, err
	}
	if len(s.opts.SandboxProbe) == 0 {
		r.Err = "this mcptray was started without its probe"
	}
	if err := sandbox.WriteCheck(s.sandboxCheckFile(), r); err != nil {
		s.log.Warn("the sandbox check is not kept; mcptray checks again at its next start", "err", err)
	}
	sandbox.SetLastCheck(&r)
	s.log.Info("checked the sandbox on this computer", "held", r.Held(), "kernel", r.Kernel, "namespaces", r.Namespaces)
	if l := s.activity.Load(); l != nil {
		l.RecordTrust(activity.Trust{Time: s.opts.Now(), Action: activity.SandboxChecked,
			Target: "this computer (Linux " + r.Kernel + ")", Detail: checkDetail(r), By: decidedBy(ctx)})
	}
	s.notices.Publish(struct{}{}) // what the servers' sandboxes say changed
	return r, nil
}

// LastSandboxCheck is the last check on this computer; nil when none ran
// yet.
func (s *Service) LastSandboxCheck(ctx context.Context) (*sandbox.Report, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	return sandbox.LastCheck(), nil
}

// checkDetail is the record's words for r: short, one line.
func checkDetail(r sandbox.Report) string {
	if r.Err != "" {
		return "could not run: " + r.Err
	}
	if r.Held() {
		return "every door held"
	}
	var names []string
	for _, d := range r.Open() {
		names = append(names, d.Door)
	}
	return "not held: " + strings.Join(names, ", ")
}

// checkProxy is the service's egress proxy as the check's servers reach
// it, as servers do (through their network's listener, or its port);
// nil when it has none, and the check stands a listener in for it.
func (s *Service) checkProxy() *sandbox.CheckProxy {
	if s.egress == nil {
		return nil
	}
	return &sandbox.CheckProxy{Port: s.egress.Port(), Env: s.egress.Env, Serve: s.egress.Serve}
}

// checkInput is in as core/conn computes a local server's input: the
// check's server as a config entry, in the check's home, through
// launcher, with the proxy's port and variables the check gives it.
func checkInput(launcher string, in sandbox.Input) sandbox.Input {
	o := conn.Options{Launcher: launcher, Home: in.Home, ServersDir: filepath.Dir(in.DataDir)}
	if in.EgressPort > 0 {
		port, env := in.EgressPort, in.EgressEnv
		o.Egress = func(string) (int, map[string]string) { return port, env }
	}
	srv := &config.Server{Name: filepath.Base(in.DataDir), Transport: config.Stdio, Command: in.Program, Args: in.Args, Cwd: in.Dir}
	srv.Origin.Folder = in.ProjectDir
	out := o.SandboxInput(srv, in.Program, in.Env)
	out.Namespaces = in.Namespaces // as the check tries it (the same, from sandbox.Isolation)
	return out
}
