package host

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// TestFirstLaunch: the window opens by itself on the very first launch
// only.
func TestFirstLaunch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := config.Paths{Home: dir, UserConfigDir: filepath.Join(dir, ".config")}
	if !firstLaunch(p) {
		t.Error("the first launch is not seen as the first")
	}
	if firstLaunch(p) {
		t.Error("the second launch is seen as the first")
	}
}

// TestDisplayProblem: with no display the words say how to run without
// one; with either kind of display there is nothing to say.
func TestDisplayProblem(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("macOS and Windows always have a display")
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if p := DisplayProblem(env(nil)); !strings.Contains(p, "mcptray serve") || strings.Contains(p, "\n") {
		t.Errorf("with no display: %q", p)
	}
	for _, m := range []map[string]string{{"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}} {
		if p := DisplayProblem(env(m)); p != "" {
			t.Errorf("with %v: %q", m, p)
		}
	}
}
