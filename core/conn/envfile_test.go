package conn

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// envFileEntry is a stdio server, run through sh, that adds a tool named
// after its $FROM_FILE and $OVERRIDDEN variables, so its tool list shows
// what environment it got.
func envFileEntry(t *testing.T, name string, s func(*config.Server)) config.Entry {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the test server through")
	}
	e := stdioEntry(name)
	e.Command = sh
	e.Args = []string{"-c", `exec "$TEST_SERVER" -hang-tool "t_${FROM_FILE}_${OVERRIDDEN}"`}
	e.Env = map[string]string{"TEST_SERVER": testServerBin, "OVERRIDDEN": "env"}
	s(&e.Server)
	return e
}

func TestEnvFileIsLoaded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dotenv := "# a comment\nexport FROM_FILE=\"file\" # trailing comment\nOVERRIDDEN='file'\n"
	if err := os.WriteFile(filepath.Join(dir, "server.env"), []byte(dotenv), 0o600); err != nil {
		t.Fatal(err)
	}
	e := envFileEntry(t, "dotenv", func(s *config.Server) {
		// Relative to the config file's folder, not to mcptray's cwd.
		s.Origin.File = filepath.Join(dir, "mcp.json")
		s.EnvFile = "server.env"
	})
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(e)); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "dotenv", Connected)
	var names []string
	for _, tl := range info.Tools {
		names = append(names, tl.Name)
	}
	// FROM_FILE comes from the file; OVERRIDDEN is in both and env wins.
	if !strings.Contains(strings.Join(names, " "), "t_file_env") {
		t.Errorf("tools %v; want t_file_env (FROM_FILE from the env file, OVERRIDDEN from env)", names)
	}
}

func TestEnvFileProblemsFailTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.env")
	if err := os.WriteFile(bad, []byte("SECRET=hunter2\nnot a line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		set    func(*config.Server)
		want   string
		absent string
	}{
		{"missing", func(s *config.Server) { s.EnvFile = filepath.Join(dir, "none.env") }, "none.env cannot be read: it does not exist", ""},
		{"garbled", func(s *config.Server) { s.EnvFile = bad }, "bad.env is not in NAME=value form", "hunter2"},
		{"nowhere", func(s *config.Server) { s.EnvFile = "rel.env" }, "rel.env is a relative path", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions()
			opts.MinBackoff = deadline * 2 // one failure is enough to look at
			m := newTestManager(t, opts)
			if err := m.Apply(setOf(envFileEntry(t, tc.name, tc.set))); err != nil {
				t.Fatal(err)
			}
			got := waitState(t, m, tc.name, Failed).Status.Err
			if !strings.Contains(got, tc.want) {
				t.Errorf("failed with %q; want it to say %q", got, tc.want)
			}
			if tc.absent != "" && strings.Contains(got, tc.absent) {
				t.Errorf("failed with %q, which shows the file's content", got)
			}
		})
	}
}
