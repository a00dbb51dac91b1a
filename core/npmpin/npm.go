package npmpin

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
)

// NPM runs the person's npm, as the person would, with install scripts
// off: npm reads the person's config (~/.npmrc, the variables npm_config_*
// of Env), so the registry is the one they chose.
type NPM struct {
	// Path is npm's program; "" looks for npm on PATH.
	Path string
	// Env is npm's environment; nil means this process's. Its HOME is
	// where npm finds the person's ~/.npmrc.
	Env []string
	// Cache is npm's cache folder, one of mcptray's own: not the person's
	// ~/.npm, whose contents their own npx runs outside any sandbox.
	Cache string
	// Scripts runs a tree's install scripts in the server's sandbox
	// (scripts.go); nil leaves them not run.
	Scripts ScriptRunner
	Logger  *slog.Logger
}

// run runs npm with args in dir and returns what it printed on stdout.
func (n *NPM) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	path := n.Path
	if path == "" {
		p, err := exec.LookPath("npm")
		if err != nil {
			return nil, fmt.Errorf("finding npm: %w", err)
		}
		path = p
	}
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)],
		"npm_config_ignore_scripts=true", // never an install script, whatever .npmrc says
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
		"npm_config_yes=true")
	if n.Cache != "" {
		env = append(env, "npm_config_cache="+n.Cache)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if n.Logger != nil {
		n.Logger.Debug("running npm", "args", strings.Join(args, " "))
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm %s: %w: %s", args[0], err, lastLines(errOut.String(), 4))
	}
	return out.Bytes(), nil
}

// lastLines is the last n lines of s that say something, on one line.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " / ")
}
