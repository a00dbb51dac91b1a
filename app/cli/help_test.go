package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// Every command's --help prints that command's usage on stdout and exits 0,
// whatever else is on the line, and runs nothing.
func TestEveryCommandHelp(t *testing.T) {
	h := newHome(t)
	seen := map[string]bool{}
	for _, c := range commands {
		if seen[c.name] {
			continue
		}
		seen[c.name] = true
		for _, flag := range []string{"--help", "-h"} {
			code, out, errOut := h.run(c.name, flag)
			if code != 0 || errOut != "" {
				t.Errorf("mcptray %s %s: exit %d, stderr %q; want 0 and nothing", c.name, flag, code, errOut)
			}
			if !strings.HasPrefix(out, "mcptray "+c.name+" ") || !strings.Contains(out, c.help) {
				t.Errorf("mcptray %s %s printed %q; want its usage", c.name, flag, out)
			}
			if got, _, _ := h.run("help", c.name); got != 0 {
				t.Errorf("mcptray help %s: exit %d", c.name, got)
			}
		}
	}
	// help COMMAND says the same as COMMAND --help, every form of it.
	_, help, _ := h.run("help", "login")
	_, flag, _ := h.run("login", "--help")
	if help != flag || strings.Count(help, "mcptray login ") < 2 {
		t.Errorf("mcptray help login:\n%s\nmcptray login --help:\n%s", help, flag)
	}
	// Nothing ran: no --help made a config folder.
	if _, err := os.Stat(h.paths.Dir()); err == nil {
		t.Errorf("a --help created %s", h.paths.Dir())
	}
}

// A --help that belongs to a server's own command line is the server's.
func TestHelpAfterDashDashIsTheServers(t *testing.T) {
	h := newHome(t)
	if out := h.must("add", "demo", "--", "demo-server", "--help"); strings.HasPrefix(out, "mcptray add") {
		t.Errorf("add printed its usage instead of adding: %q", out)
	}
	if out := h.must("list"); !strings.Contains(out, "demo") {
		t.Errorf("the server was not added: %s", out)
	}
}

func TestHelpUnknownCommand(t *testing.T) {
	h := newHome(t)
	h.fails(2, `there is no command "nope"`, "help", "nope")
	if code, out, _ := h.run("help"); code != 0 || !strings.Contains(out, "mcptray version") || !strings.Contains(out, "mcptray autostart") {
		t.Errorf("mcptray help: exit %d, %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	old := service.Version
	service.Version = "1.2.3"
	defer func() { service.Version = old }()
	h := newHome(t)
	out := h.must("version")
	want := "mcptray 1.2.3\nbuilt with " + runtime.Version() + " for " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("mcptray version:\n%s\nwant it to start with\n%s", out, want)
	}
	if alias := h.must("--version"); alias != out {
		t.Errorf("mcptray --version: %q, want %q", alias, out)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(h.must("version", "--json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Version != "1.2.3" || v.Go != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH {
		t.Errorf("mcptray version --json: %+v", v)
	}
	h.fails(2, "version takes no arguments", "version", "extra")
}

func TestAutostartCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows the switch is the person's own registry, which tests do not touch")
	}
	h := newHome(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(h.paths.UserConfigDir, "autostart", "dev.mcptray.mcptray.desktop")
	if runtime.GOOS == "darwin" {
		entry = filepath.Join(h.paths.Home, "Library", "LaunchAgents", "dev.mcptray.mcptray.plist")
	}
	if out := h.must("autostart", "status"); !strings.Contains(out, "does not start when you log in") {
		t.Errorf("status before on: %q", out)
	}
	if out := h.must("autostart", "on"); !strings.Contains(out, "starts in the tray when you log in ("+entry+")") {
		t.Errorf("on: %q", out)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), exe) || !strings.Contains(string(b), "--autostart") {
		t.Errorf("the entry does not start %s --autostart:\n%s", exe, b)
	}
	var st struct {
		On, Current bool
		Where       string
	}
	if err := json.Unmarshal([]byte(h.must("autostart", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if !st.On || !st.Current || st.Where != entry {
		t.Errorf("status --json: %+v", st)
	}
	if out := h.must("autostart", "off"); !strings.Contains(out, "does not start") {
		t.Errorf("off: %q", out)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("after off the entry is still there: %v", err)
	}
	h.fails(2, "say on, off or status", "autostart")
	h.fails(2, `not "maybe"`, "autostart", "maybe")
}
