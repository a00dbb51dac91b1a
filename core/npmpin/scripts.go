package npmpin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Install scripts run in a sandbox made as the server's own, or not at
// all. npm installs every tree with scripts off (npm.go); then, when the
// tree's lockfile says some of its packages declare install scripts
// (preinstall, install, postinstall, or a binding.gyp to build), NPM.Scripts
// runs the person's npm once more, as npm rebuild --foreground-scripts in
// the tree's folder, of those packages alone (by name and version: a
// package the lockfile says has none runs none, whatever its tarball's
// package.json says), through the server's launcher: Landlock, the
// seccomp filter and namespaces as the server's, no network at all (no
// port, no proxy: a script that downloads refuses to work, and says so),
// and a folder of its own for HOME, npm's cache and TMPDIR. It may write
// the tree's node_modules and that folder, and nothing else: not the
// person's home, not mcptray's config. All this happens before the tree
// is marked installed (installedMark), which is what lets a server run
// from it; then the tree lies where no server may write.
//
// What became of the scripts is kept beside the tree (scriptsMark) and
// said with its facts: which packages ran them, and that they ran in the
// sandbox, or why they failed there, or why they did not run (no sandbox
// on this computer). A script that fails does not stop the tree: it is
// installed as it was without scripts, as before, with what the script
// wrote in its own tree. mcptray writes its marks after the scripts ended,
// through no link they could have made.

// ScriptRunner runs program with args (npm rebuild) and env in a sandbox
// that may write only write (the tree's node_modules) and tmp, a folder
// of its own, and returns what it printed. The service makes it from the
// server's own sandbox (core/service's scripts.go).
type ScriptRunner func(ctx context.Context, write, tmp, program string, args, env []string) (string, error)

// ScriptsRun is what became of a tree's install scripts.
type ScriptsRun struct {
	// Packages are the packages that declare install scripts.
	Packages []string `json:"packages"`
	// Ran is true when they ran, in the server's sandbox, and ended well.
	Ran bool `json:"ran,omitempty"`
	// Failed says how they ended when they ran and did not end well.
	Failed string `json:"failed,omitempty"`
	// NotRun says why they did not run.
	NotRun string `json:"notRun,omitempty"`
}

// Words says r: "install scripts ran in its sandbox: a@1.0.0".
func (r ScriptsRun) Words() string {
	pkgs := strings.Join(r.Packages, ", ")
	switch {
	case r.Ran:
		return "install scripts ran in its sandbox: " + pkgs
	case r.Failed != "":
		return "install scripts of " + pkgs + " failed in its sandbox: " + sanitize.Line(r.Failed)
	case r.NotRun != "":
		return "install scripts not run (" + r.NotRun + "): " + pkgs
	}
	return "install scripts not run: " + pkgs
}

// scriptsMark, in node_modules, says what became of the tree's scripts.
const scriptsMark = ".mcptray-scripts"

// scriptsTimeout bounds a tree's scripts (a native module's build).
const scriptsTimeout = 10 * time.Minute

// runScripts runs the install scripts of the tree in dir, whose lockfile
// is l, in the sandbox n.Scripts makes, and keeps what became of them.
// A tree without scripts has nothing to run and no mark.
func (n *NPM) runScripts(ctx context.Context, dir string, l Lock) error {
	pkgs := l.Scripts()
	if len(pkgs) == 0 {
		return nil
	}
	nm := filepath.Join(dir, "node_modules")
	if st, err := os.Lstat(nm); err != nil || !st.IsDir() {
		return fmt.Errorf("the tree has no node_modules folder to run its scripts in")
	}
	run := ScriptsRun{Packages: pkgs}
	if n.Scripts == nil {
		run.NotRun = "no sandbox to run them in here"
	} else {
		tmp, err := os.MkdirTemp(filepath.Dir(dir), ".scripts-")
		if err != nil {
			return fmt.Errorf("making a folder for its install scripts: %w", err)
		}
		defer os.RemoveAll(tmp)
		program, args, env, err := n.rebuild(dir, tmp, pkgs)
		if err != nil {
			return err
		}
		sctx, cancel := context.WithTimeout(ctx, scriptsTimeout)
		out, err := n.Scripts(sctx, nm, tmp, program, args, env)
		cancel()
		if err != nil {
			run.Failed = err.Error()
			if cmd := failedScript(out); cmd != "" {
				run.Failed += ", running " + cmd
			}
		} else {
			run.Ran = true
		}
		if n.Logger != nil {
			n.Logger.Info("ran a tree's install scripts in its sandbox", "packages", strings.Join(pkgs, ", "), "ran", run.Ran, "failed", run.Failed, "output", sanitize.Line(lastLines(out, 8)))
		}
	}
	// Its node_modules must still be the folder the scripts were given:
	// they could not replace it, but mcptray writes in it next.
	if st, err := os.Lstat(nm); err != nil || !st.IsDir() {
		return fmt.Errorf("the tree's node_modules is no longer a folder after its install scripts")
	}
	if run.Ran || run.Failed != "" {
		// What the scripts left at the names of mcptray's marks goes
		// first: the marks are written anew below and after.
		for _, m := range []string{installedMark, scriptsMark} {
			if err := os.Remove(filepath.Join(nm, m)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing what its install scripts left at %s: %w", m, err)
			}
		}
		if err := linksOut(dir, pkgs); err != nil { // links.go
			return err
		}
	}
	data, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("keeping what its install scripts did: %w", err)
	}
	return writeFresh(filepath.Join(nm, scriptsMark), data)
}

// failedScript is the script npm says failed ("node postinstall.js"),
// from what npm rebuild printed; "" when it does not say.
func failedScript(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "npm error command sh -c "); ok {
			return sanitize.Line(cmd)
		}
	}
	return ""
}

// rebuild is the person's npm that runs the scripts of the packages pkgs
// ("name@version") of the tree in dir, and no other's: npm rebuild, with
// their config's settings but no credential (HOME and the user config
// are tmp's), npm's cache and logs in tmp, and scripts on, their output
// on npm's.
func (n *NPM) rebuild(dir, tmp string, pkgs []string) (string, []string, []string, error) {
	for _, p := range pkgs {
		if !packageSpec.MatchString(p) {
			return "", nil, nil, fmt.Errorf("the lockfile names a package %q that npm could not be asked to rebuild", sanitize.Line(p))
		}
	}
	path := n.Path
	if path == "" {
		p, err := exec.LookPath("npm")
		if err != nil {
			return "", nil, nil, fmt.Errorf("finding npm: %w", err)
		}
		path = p
	}
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "HOME" || strings.HasPrefix(strings.ToLower(k), "npm_config_")
	})
	env = append(env, "HOME="+tmp,
		"npm_config_userconfig="+filepath.Join(tmp, ".npmrc"),
		"npm_config_cache="+filepath.Join(tmp, "npm-cache"),
		"npm_config_ignore_scripts=false", "npm_config_foreground_scripts=true",
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
		"npm_config_offline=true")
	return path, append([]string{"rebuild", "--prefix", dir, "--foreground-scripts", "--"}, pkgs...), env, nil
}

// packageSpec is a package's name and exact version as npm writes them:
// "name@1.2.3" or "@scope/name@1.2.3-rc.1+build".
var packageSpec = regexp.MustCompile(`^(@[A-Za-z0-9_~][A-Za-z0-9._~-]*/)?[A-Za-z0-9._~][A-Za-z0-9._~-]*@[0-9A-Za-z.+-]+$`)

// ScriptsOf reads what became of the install scripts of the tree in dir;
// false when it has no mark (no scripts, or installed before scripts
// ran).
func ScriptsOf(dir string) (ScriptsRun, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", scriptsMark))
	if err != nil {
		return ScriptsRun{}, false
	}
	var r ScriptsRun
	if json.Unmarshal(data, &r) != nil {
		return ScriptsRun{}, false
	}
	return r, true
}

// writeFresh writes data to path as a new file: whatever lies there (a
// link a script made, to the person's ~/.bashrc say) is removed, not
// followed.
func writeFresh(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return f.Close()
}
