package window

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/autostart"
	"github.com/mcptray/mcptray/core/config"
)

// TestSettingsStartAtLogin: the box in Settings writes the login entry and
// removes it again, and shows what is there when Settings opens.
func TestSettingsStartAtLogin(t *testing.T) {
	home := t.TempDir()
	paths := config.Paths{Home: home, UserConfigDir: filepath.Join(home, ".config")}
	sw, err := autostart.New("linux", paths, "/usr/bin/mcptray")
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(home, ".config", "autostart", "dev.mcptray.mcptray.desktop")
	h := newHarness(t, sampleSnapshot(), Options{Autostart: sw})

	h.tap(h.v.settingsButton)
	l := h.v.settings.login
	h.do(func() {
		if l.check.Checked || l.check.Disabled() || l.check.Text != loginLabel {
			t.Fatalf("Settings opens with start at login checked %v, disabled %v", l.check.Checked, l.check.Disabled())
		}
		test.Tap(l.check)
	})
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("checking the box wrote no entry: %v", err)
	}
	if !strings.Contains(string(b), "Exec=/usr/bin/mcptray --autostart\n") {
		t.Errorf("the entry does not start mcptray --autostart:\n%s", b)
	}
	h.do(func() {
		if !l.check.Checked || !strings.Contains(l.note.Text, entry) {
			t.Errorf("after checking: checked %v, note %q", l.check.Checked, l.note.Text)
		}
		h.v.settings.d.Hide()
	})

	// Opened again, Settings shows the entry that is there.
	h.tap(h.v.settingsButton)
	l = h.v.settings.login
	h.do(func() {
		if !l.check.Checked {
			t.Error("Settings opened again does not show start at login on")
		}
		test.Tap(l.check)
	})
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("unchecking the box left the entry: %v", err)
	}
	h.do(func() {
		if l.check.Checked || len(h.v.errs) != 0 {
			t.Errorf("after unchecking: checked %v, errors %q", l.check.Checked, h.v.errs)
		}
	})
}

// TestSettingsStartAtLoginUnavailable: with no switch the box is off and
// disabled, and says so.
func TestSettingsStartAtLoginUnavailable(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.tap(h.v.settingsButton)
	h.do(func() {
		l := h.v.settings.login
		if l.check.Checked || !l.check.Disabled() || !strings.Contains(l.note.Text, "cannot be set up") {
			t.Errorf("no switch: checked %v, disabled %v, note %q", l.check.Checked, l.check.Disabled(), l.note.Text)
		}
	})
}

// TestSettingsStartAtLoginFails: an entry that cannot be written is said in
// an error, and the box shows the entry as it is (off).
func TestSettingsStartAtLoginFails(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".config")
	// autostart/ is a file: no entry can go in it.
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "autostart"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sw, err := autostart.New("linux", config.Paths{Home: home, UserConfigDir: cfg}, "/usr/bin/mcptray")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sampleSnapshot(), Options{Autostart: sw})
	h.tap(h.v.settingsButton)
	h.do(func() {
		l := h.v.settings.login
		test.Tap(l.check)
		if l.check.Checked || len(h.v.errs) != 1 || !strings.Contains(h.v.errs[0], "turning on start at login") {
			t.Errorf("a failed write: checked %v, errors %q", l.check.Checked, h.v.errs)
		}
	})
}
