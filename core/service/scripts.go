package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/sandbox"
)

// scriptsIn runs the install scripts of the tree of the server called
// name in a sandbox made as that server's own (npmpin's scripts.go): the
// same launcher, Landlock rules, seccomp filter and namespaces, with the
// scripts' temporary folder as its data folder, no network at all (as a
// look: no port, no proxy), and of what the server may write only that
// folder and the tree's node_modules: not its project, not its own data
// folder, not what the person allowed it. nil where servers run without
// a sandbox (no launcher, not Linux): the scripts do not run, and the
// facts say so.
func (s *Service) scriptsIn(name string) npmpin.ScriptRunner {
	o := s.sandboxOpts()
	if o.Launcher == "" || o.ServersDir == "" || runtime.GOOS != "linux" {
		return nil
	}
	o.Egress = nil // no proxy, and no session of the server's
	sv := config.Server{Name: name}
	if e, err := s.find(s.current(), name); err == nil {
		sv = e.Server
	}
	sv.Sandbox = sv.Sandbox.Clone()
	sv.Sandbox.Off = false // the person's trust in the server is not in its scripts
	return func(ctx context.Context, write, tmp, program string, args, env []string) (string, error) {
		in := o.SandboxInput(&sv, program, env)
		in.DataDir = tmp
		p, err := sandbox.Default(in)
		if err != nil {
			return "", fmt.Errorf("making its sandbox: %w", err)
		}
		if p.None || !sandbox.Protection(p).Files {
			return "", errors.New("this computer has no sandbox to run them in")
		}
		p = scriptsPolicy(p, tmp, write)
		if err := p.Prepare(); err != nil {
			return "", fmt.Errorf("making its sandbox: %w", err)
		}
		out, err := sandbox.Look(ctx, o.Launcher, p, program, args, env)
		if err != nil {
			return out, fmt.Errorf("npm rebuild in its sandbox: %w", err)
		}
		return out, nil
	}
}

// scriptsPolicy is p, the server's sandbox with tmp as its data folder,
// left to write only tmp and write (and what every server writes:
// /dev/null, and its own /tmp in namespaces of its own), with HOME in
// tmp.
func scriptsPolicy(p sandbox.Policy, tmp, write string) sandbox.Policy {
	others := p.Writes() // the server's folders of the computer's
	p.Write = slices.DeleteFunc(slices.Clone(p.Write), func(w string) bool {
		return slices.Contains(others, w) && !within(tmp, w)
	})
	p.Write = append(p.Write, write)
	p.Read = append(slices.Clone(p.Read), filepath.Dir(write))
	env := make(map[string]string, len(p.Env)+1)
	for k, v := range p.Env {
		env[k] = v
	}
	env["HOME"] = tmp
	p.Env = env
	return p
}

// within reports whether path is dir or lies beneath it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
