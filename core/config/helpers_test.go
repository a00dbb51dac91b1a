package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testHome is a person's computer inside t.TempDir(): a home folder, its
// config folder and an enterprise file location, none of them shared with
// the machine running the tests.
type testHome struct {
	root  string
	paths Paths
}

func newTestHome(t *testing.T) testHome {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return testHome{root: root, paths: Paths{
		Home:          home,
		UserConfigDir: filepath.Join(home, ".config"),
		Enterprise:    filepath.Join(root, "etc", "mcptray", "managed.json"),
	}}
}

// loader returns a Loader over h whose environment is env and nothing else.
func (h testHome) loader(env map[string]string) *Loader {
	return &Loader{
		Paths:     h.paths,
		Lookup:    mapLookup(env),
		Approvals: &ApprovalStore{Path: h.paths.ApprovalsFile()},
	}
}

// folder creates a project folder under the temporary root and returns it.
func (h testHome) folder(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(h.root, "projects", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// userFile writes mcptray's own config file with servers (an mcpServers
// object as JSON text, or "") and folders.
func (h testHome) userFile(t *testing.T, servers string, folders ...string) {
	t.Helper()
	if servers == "" {
		servers = "{}"
	}
	f, err := json.Marshal(folders)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.paths.UserFile(), `{"mcpServers": `+servers+`, "folders": `+string(f)+`}`)
}

func mapLookup(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

// writeFile writes content to path, creating its folders.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parse reads data as src would be read from disk, without the disk.
func parse(src Source, vars Vars, data string) ([]Server, []Problem) {
	if src.File == "" {
		src.File = "/test/mcp.json"
	}
	d, p := parseDocument(src, []byte(data))
	if p != nil {
		return nil, []Problem{*p}
	}
	return d.servers(vars)
}

// names returns the Name of each entry, in order.
func names(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name
	}
	return out
}

func serverNames(servers []Server) []string {
	out := make([]string, len(servers))
	for i, s := range servers {
		out[i] = s.Name
	}
	return out
}

// problemText joins every problem, for error messages.
func problemText(problems []Problem) string {
	var b strings.Builder
	for _, p := range problems {
		b.WriteString("\n\t")
		b.WriteString(p.Error())
	}
	return b.String()
}

// entryNamed returns the running entry called name or fails the test.
func entryNamed(t *testing.T, set *Set, name string) *Entry {
	t.Helper()
	for i := range set.Servers {
		if set.Servers[i].Name == name {
			return &set.Servers[i]
		}
	}
	t.Fatalf("no server %q among %q (suppressed %q; problems:%s)", name, names(set.Servers), names(set.Suppressed), problemText(set.Problems))
	return nil
}
