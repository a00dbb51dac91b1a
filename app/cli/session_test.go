package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/autostart"
)

// sdkEnv is what the MCP SDK's stdio client gives the servers an app
// starts, mcptray stdio among them, unless the app's config names more.
var sdkEnv = []string{"HOME=/home/me", "LOGNAME=me", "PATH=/usr/bin:/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=me"}

// runtimeWithBus is a private runtime folder with a socket named bus.
func runtimeWithBus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return dir
}

func envOf(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// TestPlanStartFromBareEnvironment: from the SDK's six variables, the
// mcptray that stdio starts gets the runtime folder and the session bus at
// its usual place (so the keychain works), and the desktop from the
// systemd user manager, but nothing else of the manager's; the log says
// which variables were added and from where, never their values.
func TestPlanStartFromBareEnvironment(t *testing.T) {
	t.Parallel()
	run := runtimeWithBus(t)
	asked := 0
	look := sessionLook{goos: "linux", runUser: func() string { return run },
		manager: func(_ context.Context, env []string) []string {
			asked++
			if envOf(env, "XDG_RUNTIME_DIR") != run {
				t.Errorf("the user manager was asked without the runtime folder: %q", env)
			}
			return []string{"DISPLAY=:5", "XAUTHORITY=/home/me/.Xauthority", "WAYLAND_DISPLAY=", "GITHUB_TOKEN=ghp_secret", "PATH=/evil"}
		}}
	p := planStart(context.Background(), sdkEnv, look)
	if got := envOf(p.env, "XDG_RUNTIME_DIR"); got != run {
		t.Errorf("XDG_RUNTIME_DIR = %q, want %q", got, run)
	}
	if got, want := envOf(p.env, "DBUS_SESSION_BUS_ADDRESS"), "unix:path="+filepath.Join(run, "bus"); got != want {
		t.Errorf("DBUS_SESSION_BUS_ADDRESS = %q, want %q", got, want)
	}
	if envOf(p.env, "DISPLAY") != ":5" || envOf(p.env, "XAUTHORITY") == "" {
		t.Errorf("the desktop was not taken from the user manager: %q", p.env)
	}
	if envOf(p.env, "GITHUB_TOKEN") != "" || envOf(p.env, "PATH") != "/usr/bin:/bin" {
		t.Errorf("more than the desktop was taken from the user manager: %q", p.env)
	}
	if !slices.Equal(p.args, []string{autostart.Arg}) {
		t.Errorf("with a desktop, mcptray is started as %q, want the tray without its window (%s)", p.args, autostart.Arg)
	}
	if asked != 1 {
		t.Errorf("the user manager was asked %d times", asked)
	}
	d := p.describe()
	for _, name := range []string{"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "systemd user manager", "tray"} {
		if !strings.Contains(d, name) {
			t.Errorf("the log line lacks %q: %s", name, d)
		}
	}
	for _, value := range []string{run, ":5", ".Xauthority", "ghp_secret"} {
		if strings.Contains(d, value) {
			t.Errorf("the log line holds the value %q: %s", value, d)
		}
	}
}

// TestPlanStartKeepsTheApps: what the app gave wins, nothing is asked,
// and the log says the environment is the app's.
func TestPlanStartKeepsTheApps(t *testing.T) {
	t.Parallel()
	run := runtimeWithBus(t)
	look := sessionLook{goos: "linux", runUser: func() string { t.Error("runUser asked"); return "" },
		manager: func(context.Context, []string) []string { t.Error("manager asked"); return nil }}
	env := append(slices.Clone(sdkEnv), "XDG_RUNTIME_DIR="+run, "DBUS_SESSION_BUS_ADDRESS=unix:path=/elsewhere", "WAYLAND_DISPLAY=wayland-1")
	p := planStart(context.Background(), env, look)
	if !slices.Equal(p.env, env) || len(p.added) != 0 {
		t.Errorf("the app's environment was changed: %q, added %q", p.env, p.added)
	}
	if !slices.Equal(p.args, []string{autostart.Arg}) {
		t.Errorf("on Wayland mcptray is started as %q", p.args)
	}
	if d := p.describe(); !strings.Contains(d, "unchanged") {
		t.Errorf("log line: %s", d)
	}
}

// TestPlanStartNoSession: no runtime folder of the person's, a "bus"
// that is no socket, no user manager: mcptray serve, with the app's
// environment.
func TestPlanStartNoSession(t *testing.T) {
	t.Parallel()
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, look := range map[string]sessionLook{
		"no /run/user/UID": {goos: "linux", runUser: func() string { return "" }, manager: func(context.Context, []string) []string { return nil }},
		"no bus socket":    {goos: "linux", runUser: func() string { return run }, manager: func(context.Context, []string) []string { return nil }},
		"macOS":            {goos: "darwin", runUser: func() string { return run }, manager: func(context.Context, []string) []string { return []string{"DISPLAY=:0"} }},
	} {
		p := planStart(context.Background(), sdkEnv, look)
		if !slices.Equal(p.args, []string{"serve"}) || envOf(p.env, "DBUS_SESSION_BUS_ADDRESS") != "" || envOf(p.env, "DISPLAY") != "" {
			t.Errorf("%s: started as %q with %q", name, p.args, p.env)
		}
	}
	// An app that says there is no desktop (DISPLAY set empty) is not
	// given the user manager's.
	p := planStart(context.Background(), append(slices.Clone(sdkEnv), "DISPLAY="), sessionLook{goos: "linux",
		manager: func(context.Context, []string) []string { return []string{"DISPLAY=:0"} }})
	if envOf(p.env, "DISPLAY") != "" || !slices.Equal(p.args, []string{"serve"}) {
		t.Errorf("with DISPLAY set empty: started as %q with %q", p.args, p.env)
	}
	// A bus address of "autolaunch:" is no bus: the one in the runtime
	// folder is taken instead.
	withBus := runtimeWithBus(t)
	p = planStart(context.Background(), append(slices.Clone(sdkEnv), "XDG_RUNTIME_DIR="+withBus, "DBUS_SESSION_BUS_ADDRESS=autolaunch:"),
		sessionLook{goos: "linux"})
	if got := envOf(p.env, "DBUS_SESSION_BUS_ADDRESS"); got != "unix:path="+filepath.Join(withBus, "bus") {
		t.Errorf("with autolaunch: the bus is %q", got)
	}
}

// TestBusEscape: a runtime folder with a space or a comma still makes one
// bus address, not two.
func TestBusEscape(t *testing.T) {
	t.Parallel()
	if got, want := busEscape("/run/user/1000/bus"), "/run/user/1000/bus"; got != want {
		t.Errorf("busEscape = %q, want %q", got, want)
	}
	if got, want := busEscape("/tmp/my run,x=y;z/bus"), "/tmp/my%20run%2cx%3dy%3bz/bus"; got != want {
		t.Errorf("busEscape = %q, want %q", got, want)
	}
}
