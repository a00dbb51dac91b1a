package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/autostart"
	"github.com/mcptray/mcptray/core/service"
)

// desktopVars are what the person's desktop session tells its programs of
// the desktop: an app may leave them out of mcptray stdio's environment,
// and the mcptray it starts needs them for its tray and to open the
// browser for a sign-in.
var desktopVars = []string{"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_SESSION_TYPE", "XDG_CURRENT_DESKTOP"}

// managerWait bounds asking the systemd user manager for its environment.
const managerWait = 2 * time.Second

// sessionLook is where the person's session is found: this computer's own
// places, or a test's.
type sessionLook struct {
	// goos is the operating system.
	goos string
	// runUser is service.RunUserDir: the per-user runtime folder.
	runUser func() string
	// manager returns the systemd user manager's environment, asked with
	// env; nil when it cannot be reached.
	manager func(ctx context.Context, env []string) []string
}

// thisSession is this computer's.
func thisSession(goos string) sessionLook {
	return sessionLook{goos: goos, runUser: service.RunUserDir, manager: managerEnv}
}

// startPlan is how mcptray stdio starts mcptray when none runs.
type startPlan struct {
	// args are mcptray's arguments: serve, or the login entry's (the tray
	// without its window) where a desktop is there.
	args []string
	// env is its environment.
	env []string
	// added says which variables were added to the app's environment, and
	// where each was found: names, never values.
	added []string
}

// describe says, for the log, what the plan starts and with which
// environment.
func (p startPlan) describe() string {
	what := "mcptray serve (no desktop found)"
	if p.args[0] != "serve" {
		what = "the tray without its window (a desktop is there)"
	}
	env := "the app's environment, unchanged"
	if len(p.added) > 0 {
		env = "the app's environment with " + strings.Join(p.added, ", ")
	}
	return what + "; " + env
}

// planStart finds how to start mcptray for the person's session from an
// app's environment (base), which may be as bare as the MCP SDK's stdio
// client makes it: HOME, LOGNAME, PATH, SHELL, TERM and USER. A mcptray
// started with that would have no session bus, so no keychain for its
// sign-ins and secrets, and no desktop. What the app gave wins; what it
// left out is found where the session keeps it:
//
//   - XDG_RUNTIME_DIR: /run/user/UID, when it is the person's own
//     (service.RunUserDir), as it is where the control socket is found;
//   - DBUS_SESSION_BUS_ADDRESS: the session bus at its usual place, the
//     socket "bus" in the runtime folder;
//   - the desktop (desktopVars): the systemd user manager's environment,
//     into which desktop sessions put theirs, unless the app set DISPLAY
//     or WAYLAND_DISPLAY (even empty, which says there is no desktop).
//
// Where a desktop is then there (Linux and the BSDs), the plan starts the
// tray as the login entry does, without its window; otherwise mcptray
// serve.
func planStart(ctx context.Context, base []string, look sessionLook) startPlan {
	env := slices.Clone(base)
	lookup := func(k string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	get := func(k string) string { v, _ := lookup(k); return v }
	given := func(k string) bool { _, ok := lookup(k); return ok }
	p := startPlan{args: []string{"serve"}}
	set := func(k, v, from string) {
		env = append(env, k+"="+v)
		p.added = append(p.added, k+" ("+from+")")
	}
	if look.goos == "darwin" || look.goos == "windows" {
		// No session bus there: the keychain is the system's, and the
		// control folder (the paths' RuntimeDir) is found without
		// the environment.
		p.env = env
		return p
	}
	run := get("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(run) && look.runUser != nil {
		if dir := look.runUser(); dir != "" {
			run = dir
			set("XDG_RUNTIME_DIR", dir, "/run/user/UID")
		}
	}
	if bus := get("DBUS_SESSION_BUS_ADDRESS"); (bus == "" || bus == "autolaunch:") && filepath.IsAbs(run) {
		path := filepath.Join(run, "bus")
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			set("DBUS_SESSION_BUS_ADDRESS", "unix:path="+busEscape(path), "the session bus in the runtime folder")
		}
	}
	// An app that sets DISPLAY or WAYLAND_DISPLAY, even empty, has said
	// where its desktop is, or that there is none.
	if !given("DISPLAY") && !given("WAYLAND_DISPLAY") && look.manager != nil {
		var found []string
		for _, kv := range look.manager(ctx, env) {
			k, v, _ := strings.Cut(kv, "=")
			if v != "" && slices.Contains(desktopVars, k) && get(k) == "" {
				env = append(env, kv)
				found = append(found, k)
			}
		}
		if len(found) > 0 {
			p.added = append(p.added, strings.Join(found, ", ")+" (the systemd user manager)")
		}
	}
	if get("DISPLAY") != "" || get("WAYLAND_DISPLAY") != "" {
		p.args = []string{autostart.Arg}
	}
	p.env = env
	return p
}

// busEscape writes v as a D-Bus address's value: bytes other than
// letters, digits and - _ / . \ * as %XX, as the D-Bus specification says.
func busEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// managerEnv is the systemd user manager's environment (systemctl --user
// show-environment), asked with env, which names the runtime folder the
// manager listens in; nil when there is none or it does not answer within
// managerWait. Only plain KEY=VALUE lines are kept: systemctl quotes a
// value with special characters as $'…', which the desktop's variables
// never need.
func managerEnv(ctx context.Context, env []string) []string {
	ctx, cancel := context.WithTimeout(ctx, managerWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "systemctl", "--user", "show-environment")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var kept []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && k != "" && !strings.HasPrefix(v, "$'") {
			kept = append(kept, k+"="+v)
		}
	}
	return kept
}
