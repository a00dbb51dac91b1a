package service

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSandboxSaysEnvironment: what mcptray says about a server names the
// variables it gets (of the person's, what runs programs; what its config
// names) and counts those it does not, never saying a value.
func TestSandboxSaysEnvironment(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	entry := testServer("w")
	entry["env"] = map[string]string{"WEATHER_API_KEY": "value-of-its-key"}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"w": entry}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) {
		o.Only, o.Launcher = []string{}, self
		o.Conn.BaseEnv = []string{"HOME=" + h.dir, "PATH=/usr/bin:/bin", "LANG=C.UTF-8",
			"GITHUB_TOKEN=ghp_valueFromTheProfile", "AWS_SECRET_ACCESS_KEY=valueFromTheProfile", "DISPLAY=:0"}
	})
	box, err := s.SandboxOf(t.Context(), "w")
	if err != nil {
		t.Fatal(err)
	}
	env := box.Environment
	withheld := []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}
	want := "Environment: HOME, LANG, PATH of yours, WEATHER_API_KEY from its config, and its own TMPDIR and caches; not passed: 3 other variables of yours."
	if !box.Protection.Files { // no sandbox here: it gets the desktop's address
		want = "Environment: DISPLAY, HOME, LANG, PATH of yours and WEATHER_API_KEY from its config; not passed: 2 other variables of yours."
	} else {
		withheld = []string{"AWS_SECRET_ACCESS_KEY", "DISPLAY", "GITHUB_TOKEN"}
	}
	if env.Words != want {
		t.Errorf("words %q\nwant  %q", env.Words, want)
	}
	if !slices.Equal(env.Withheld, withheld) || !slices.Equal(env.Config, []string{"WEATHER_API_KEY"}) {
		t.Errorf("withheld %q, config %q", env.Withheld, env.Config)
	}
	b, _ := json.Marshal(box)
	for _, v := range []string{"valueFromTheProfile", "value-of-its-key"} {
		if strings.Contains(string(b), v) {
			t.Errorf("what mcptray says about its sandbox holds a value: %s", b)
		}
	}
}
