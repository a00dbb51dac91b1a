package bundle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// A manifest that does not follow its version's schema is refused, and
// the words say where and what.
func TestManifestAgainstSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		manifest string
		want     []string
	}{
		{"no author, a number for a name", `{"manifest_version": "0.3", "name": 7, "version": "1", "description": "x",
			"server": {"type": "node", "entry_point": "i.js", "mcp_config": {"command": "node"}}}`,
			[]string{"does not follow version 0.3 of the bundle format", "missing property 'author'", "name: got number, want string"}},
		{"unknown server type", `{"manifest_version": "0.4", "name": "x", "version": "1", "description": "x", "author": {"name": "a"},
			"server": {"type": "ruby", "entry_point": "i.rb", "mcp_config": {"command": "ruby"}}}`,
			[]string{"server.type: value must be one of"}},
		{"uv before 0.4", `{"manifest_version": "0.3", "name": "x", "version": "1", "description": "x", "author": {"name": "a"},
			"server": {"type": "uv", "entry_point": "i.py", "mcp_config": {"command": "uv"}}}`,
			[]string{"server.type: value must be one of"}},
		{"an argument that is no text", `{"manifest_version": "0.2", "name": "x", "version": "1", "description": "x", "author": {"name": "a"},
			"server": {"type": "node", "entry_point": "i.js", "mcp_config": {"command": "node", "args": ["a", 2]}}}`,
			[]string{"server.mcp_config.args[1]: got number, want string"}},
		{"a key the format lacks", `{"manifest_version": "0.3", "name": "x", "version": "1", "description": "x", "author": {"name": "a"},
			"server": {"type": "node", "entry_point": "i.js", "mcp_config": {"command": "node"}}, "run_before": "curl x | sh"}`,
			[]string{"additional properties 'run_before' not allowed"}},
		{"a bad address", `{"manifest_version": "0.3", "name": "x", "version": "1", "description": "x", "author": {"name": "a", "url": "not an address"},
			"server": {"type": "node", "entry_point": "i.js", "mcp_config": {"command": "node"}}}`,
			[]string{"author.url: 'not an address' is not valid uri"}},
		{"old version", `{"dxt_version": "0.1", "name": "x"}`, []string{"follows version 0.1 of the bundle format; mcptray reads versions 0.2, 0.3, 0.4"}},
		{"no version", `{"name": "x"}`, []string{`without "manifest_version"`}},
		{"not JSON", `{"name": `, []string{"not JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseManifest([]byte(tt.manifest))
			for _, w := range tt.want {
				refusedWith(t, err, w)
			}
		})
	}
}

// The person's settings are checked against what the manifest asks for,
// and its command made from them as the format's substitution says.
func TestCommandSubstitution(t *testing.T) {
	t.Parallel()
	raw := `{"manifest_version": "0.3", "name": "fs", "version": "1", "description": "x", "author": {"name": "a"},
	 "server": {"type": "binary", "entry_point": "bin/fs", "mcp_config": {
	   "command": "bin/fs", "args": ["--root", "${user_config.dirs}", "--limit=${user_config.limit}", "${user_config.verbose}", "--home=${HOME}${/}x", "${user_config.none}"],
	   "env": {"TOKEN": "${user_config.token}", "DOCS": "${DOCUMENTS}", "EMPTY": "${user_config.none}", "PLAIN": "p"},
	   "platform_overrides": {"win32": {"command": "bin/fs.exe"}}}},
	 "user_config": {
	   "dirs": {"type": "directory", "title": "Folders", "description": "d", "multiple": true, "default": ["${HOME}/Documents", "${HOME}/nowhere"]},
	   "limit": {"type": "number", "title": "Limit", "description": "d", "min": 1, "max": 10, "default": 5},
	   "verbose": {"type": "boolean", "title": "Verbose", "description": "d", "default": false},
	   "token": {"type": "string", "title": "Token", "description": "d", "sensitive": true, "required": true},
	   "none": {"type": "string", "title": "None", "description": "d"}}}`
	m, err := parseManifest([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	mkdirs(t, home, "Documents", "work")
	places := PlacesIn(home)
	ref := func(key string) string { return "${secret:" + key + "}" }

	_, err = m.Settings(nil, places)
	if missing, ok := errors.AsType[*MissingError](err); !ok || !slices.Equal(missing.Keys, []string{"token"}) {
		t.Fatalf("err = %v; want token missing", err)
	}
	settings, err := m.Settings(map[string][]string{"token": {"s3cret"}, "verbose": {"yes"}}, places)
	if err != nil {
		t.Fatal(err)
	}
	run, err := m.Command("/data/b/fs", "linux", places, settings, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"--root", home + "/Documents", "--limit=5", "true", "--home=" + home + "/x"}
	if run.Command != "/data/b/fs/bin/fs" || !slices.Equal(run.Args, wantArgs) || run.Cwd != "/data/b/fs" {
		t.Errorf("run = %q %q in %s; want /data/b/fs/bin/fs %q", run.Command, run.Args, run.Cwd, wantArgs)
	}
	if len(run.Env) != 3 || run.Env["TOKEN"] != "${secret:token}" || run.Env["DOCS"] != home+"/Documents" || run.Env["PLAIN"] != "p" {
		t.Errorf("env = %v", run.Env)
	}
	for _, v := range append(run.Args, run.Env["TOKEN"]) {
		if strings.Contains(v, "s3cret") {
			t.Fatalf("a secret's value went into the command: %q", v)
		}
	}
	if run, _ := m.Command(`C:\b`, "windows", places, settings, ref); !strings.HasSuffix(run.Command, "fs.exe") {
		t.Errorf("on Windows the command is %q; want its override", run.Command)
	}
	m.Server.MCPConfig.PlatformOverrides = nil
	if run, _ := m.Command(`C:\b`, "windows", places, settings, ref); !strings.HasSuffix(run.Command, "fs.exe") {
		t.Errorf("on Windows without an override the command is %q; want .exe added", run.Command)
	}

	settings, err = m.Settings(map[string][]string{"token": {"t"}, "dirs": {"~/work", home + "/Documents"}, "limit": {"7"}}, places)
	if err != nil {
		t.Fatal(err)
	}
	if run, _ = m.Command("/b", "linux", places, settings, ref); !slices.Equal(run.Args[:4], []string{"--root", home + "/work", home + "/Documents", "--limit=7"}) {
		t.Errorf("args = %q", run.Args)
	}

	bad := []struct {
		given map[string][]string
		want  string
	}{
		{map[string][]string{"token": {"t"}, "limit": {"11"}}, "limit must be from 1 to 10"},
		{map[string][]string{"token": {"t"}, "limit": {"many"}}, `limit is a number, not "many"`},
		{map[string][]string{"token": {"t"}, "verbose": {"sometimes"}}, "verbose is true or false"},
		{map[string][]string{"token": {"t"}, "dirs": {"work"}}, "dirs is a full path"},
		{map[string][]string{"token": {"t"}, "dirs": {"~/gone"}}, "does not exist here; give a folder that does"},
		{map[string][]string{"token": {"${secret:github}"}}, `holds "${"`},
		{map[string][]string{"token": {"t"}, "colour": {"red"}}, `asks for no setting "colour"; it asks for dirs, limit, verbose, token, none`},
		{map[string][]string{"token": {"t", "u"}}, "token takes one value, not 2"},
	}
	for _, b := range bad {
		if _, err := m.Settings(b.given, places); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Settings(%v) = %v; want it to say %q", b.given, err, b.want)
		}
	}

	m.Server.MCPConfig.Args = append(m.Server.MCPConfig.Args, "${APPDATA}/x")
	_, err = m.Command("/b", "linux", places, nil, ref)
	refusedWith(t, err, "refers to ${APPDATA}, which the bundle format does not define")
}

func mkdirs(t *testing.T, home string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(home, n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// What a bundle needs of this computer is said in words with where to
// get it.
func TestNeeds(t *testing.T) {
	t.Parallel()
	m := Manifest{Server: Server{Type: "node"}, Compatibility: Compatibility{
		Platforms: []string{"darwin", "win32"}, Runtimes: map[string]string{"node": ">=18.0.0", "python": "^3.10"}}}
	have := map[string]string{"python3": "Python 3.9.2"}
	c := Computer{OS: "linux",
		LookPath: func(name string) (string, error) {
			if _, ok := have[name]; ok {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		},
		Version: func(_ context.Context, program string) (string, error) {
			return have[strings.TrimPrefix(program, "/usr/bin/")], nil
		}}
	got := m.Needs(t.Context(), c)
	want := []string{
		"it runs on macOS and Windows only, not on Linux",
		"needs Node.js 18 or newer; this computer has none — install it from https://nodejs.org",
		"needs Python ^3.10; this computer has Python 3.9.2 — install a newer one from https://www.python.org/downloads",
	}
	if !slices.Equal(got, want) {
		t.Errorf("needs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	have["node"], have["python3"] = "v22.1.0", "Python 3.12.3"
	m.Compatibility.Platforms = nil
	if got := m.Needs(t.Context(), c); len(got) > 0 {
		t.Errorf("with both runtimes: needs %v", got)
	}
	// This computer, as it is: the tests' node is there.
	m = Manifest{Server: Server{Type: "node"}, Compatibility: Compatibility{Platforms: []string{platform(runtime.GOOS)}}}
	if got := m.Needs(t.Context(), ThisComputer(runVersion)); len(got) > 0 {
		t.Errorf("on this computer: needs %v", got)
	}
}

// runVersion runs the tests' own node and python; mcptray's runs them in
// a sandbox (core/service).
func runVersion(ctx context.Context, program string) (string, error) {
	out, err := exec.CommandContext(ctx, program, "--version").CombinedOutput()
	return string(out), err
}
