package autostart

import (
	"encoding/xml"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// tempPaths is a temporary home for goos, as config.NewPaths makes it.
func tempPaths(t *testing.T, goos string) config.Paths {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "xdg-config"),
		"USERPROFILE": home, "APPDATA": filepath.Join(home, "AppData", "Roaming"),
	}
	p, err := config.NewPaths(goos, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// roundTrip turns the switch on, checks the entry, and turns it off again.
func roundTrip(t *testing.T, s *Switch, wantWhere string) string {
	t.Helper()
	st, err := s.Status()
	if err != nil || st.On || st.Where != wantWhere {
		t.Fatalf("before Enable: Status = %+v, %v; want off at %s", st, err, wantWhere)
	}
	if err := s.Disable(); err != nil {
		t.Fatalf("Disable with no entry: %v", err)
	}
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	st, err = s.Status()
	if err != nil || !st.On || !st.Current {
		t.Fatalf("after Enable: Status = %+v, %v; want on and current", st, err)
	}
	got, found, err := s.at.read()
	if err != nil || !found {
		t.Fatalf("entry after Enable: found %v, %v", found, err)
	}
	if err := s.Enable(); err != nil {
		t.Fatalf("Enable twice: %v", err)
	}
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Status(); err != nil || st.On {
		t.Fatalf("after Disable: Status = %+v, %v; want off", st, err)
	}
	return got
}

func TestLinuxEntry(t *testing.T) {
	p := tempPaths(t, "linux")
	exe := "/opt/mcp tray/bin/mcptray"
	s, err := New("linux", p, exe)
	if err != nil {
		t.Fatal(err)
	}
	where := filepath.Join(p.UserConfigDir, "autostart", "dev.mcptray.mcptray.desktop")
	if !strings.Contains(where, "xdg-config") {
		t.Fatalf("entry at %s: XDG_CONFIG_HOME not followed", where)
	}
	entry := roundTrip(t, s, where)
	if !strings.Contains(entry, "\nExec=\"/opt/mcp tray/bin/mcptray\" --autostart\n") {
		t.Errorf("entry does not start the program with --autostart:\n%s", entry)
	}
	if _, err := os.Stat(where); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Disable the file is still there: %v", err)
	}
	left, _ := os.ReadDir(filepath.Dir(where))
	if len(left) != 0 {
		t.Errorf("files left in the autostart folder: %v", left)
	}
}

func TestMacOSEntry(t *testing.T) {
	p := tempPaths(t, "darwin")
	exe := "/Applications/R&D/mcptray.app/Contents/MacOS/mcptray"
	s, err := New("darwin", p, exe)
	if err != nil {
		t.Fatal(err)
	}
	entry := roundTrip(t, s, filepath.Join(p.Home, "Library", "LaunchAgents", "dev.mcptray.mcptray.plist"))
	// The property list is well-formed XML whose program arguments are
	// exactly the program and --autostart.
	var plist struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(entry), &plist); err != nil {
		t.Fatalf("the LaunchAgent is not XML: %v\n%s", err, entry)
	}
	var label string
	var args []string
	items := plist.Dict.Items
	for i := 0; i+1 < len(items); i++ {
		if items[i].XMLName.Local != "key" {
			continue
		}
		switch items[i].Text {
		case "Label":
			label = items[i+1].Text
		case "ProgramArguments":
			args = items[i+1].Strings
		}
	}
	if label != ID || len(args) != 2 || args[0] != exe || args[1] != Arg {
		t.Errorf("Label %q, ProgramArguments %q; want %q and [%q %q]", label, args, ID, exe, Arg)
	}
}

// memKey stands in for the registry, which only Windows has: the entry's
// content and the Switch's steps are the same as there.
type memKey struct{ v *string }

func (m memKey) read() (string, bool, error) {
	if m.v == nil || *m.v == "" {
		return "", false, nil
	}
	return *m.v, true, nil
}
func (m memKey) write(e string) error { *m.v = e; return nil }
func (m memKey) remove() error        { *m.v = ""; return nil }
func (m memKey) String() string       { return runKey{}.String() }

func TestWindowsEntry(t *testing.T) {
	s, err := New("windows", tempPaths(t, "windows"), `C:\Program Files\mcptray\mcptray.exe`)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	s.at = memKey{&v}
	entry := roundTrip(t, s, `HKCU\Software\Microsoft\Windows\CurrentVersion\Run\mcptray`)
	if want := `"C:\Program Files\mcptray\mcptray.exe" --autostart`; entry != want {
		t.Errorf("Run value %q, want %q", entry, want)
	}
}

func TestWindowsRegistryOnlyOnWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the real registry: not touched by tests")
	}
	s, err := New("windows", tempPaths(t, "windows"), `C:\mcptray.exe`)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Enable(); err == nil || !strings.Contains(err.Error(), "only on Windows") {
		t.Errorf("Enable for Windows elsewhere: %v; want the registry's absence said", err)
	}
}

func TestStatusOffWhenDesktopSwitchedItOff(t *testing.T) {
	for _, line := range []string{"Hidden=true", "X-GNOME-Autostart-enabled=false"} {
		p := tempPaths(t, "linux")
		s, err := New("linux", p, "/usr/bin/mcptray")
		if err != nil {
			t.Fatal(err)
		}
		entry := strings.Replace(DesktopEntry("/usr/bin/mcptray"), "X-GNOME-Autostart-enabled=true\n", line+"\n", 1)
		if err := s.at.write(entry); err != nil {
			t.Fatal(err)
		}
		if st, err := s.Status(); err != nil || st.On {
			t.Errorf("with %s: Status = %+v, %v; want off", line, st, err)
		}
		if err := s.Enable(); err != nil {
			t.Fatal(err)
		}
		if st, err := s.Status(); err != nil || !st.On {
			t.Errorf("Enable after %s: Status = %+v, %v; want on", line, st, err)
		}
	}
}

func TestStatusNotCurrentForAnotherProgram(t *testing.T) {
	p := tempPaths(t, "linux")
	old, err := New("linux", p, "/home/me/old/mcptray")
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Enable(); err != nil {
		t.Fatal(err)
	}
	s, err := New("linux", p, "/usr/bin/mcptray")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status()
	if err != nil || !st.On || st.Current {
		t.Fatalf("an entry for another copy: Status = %+v, %v; want on, not current", st, err)
	}
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Status(); err != nil || !st.Current {
		t.Fatalf("after Enable: Status = %+v, %v; want current", st, err)
	}
}

func TestDesktopExecQuoting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"/usr/bin/mcptray", "--autostart"}, `/usr/bin/mcptray --autostart`},
		{[]string{"/opt/my apps/mcptray", "--autostart"}, `"/opt/my apps/mcptray" --autostart`},
		// Inside quotes a backslash before $ and \; then the string
		// escaping doubles every backslash.
		{[]string{`/opt/$x\y/mcptray`}, `"/opt/\\$x\\\\y/mcptray"`},
		{[]string{"/opt/100%/mcptray"}, `/opt/100%%/mcptray`},
	} {
		if got := desktopExec(tc.args...); got != tc.want {
			t.Errorf("desktopExec(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New("linux", config.Paths{}, ""); err == nil {
		t.Error("New with no program: no error")
	}
	if _, err := New("ios", config.Paths{}, "/x"); err == nil {
		t.Error("New for iOS: no error")
	}
}

// The entry in packaging/ (for /etc/xdg/autostart) is the one the switch
// writes, with mcptray found on PATH.
func TestPackagedEntryIsTheSwitchs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "packaging", "linux", "mcptray-autostart.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	if want := DesktopEntry("mcptray"); string(b) != want {
		t.Errorf("packaging/linux/mcptray-autostart.desktop:\n%s\nwant what the switch writes:\n%s", b, want)
	}
}
