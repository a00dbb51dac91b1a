package conn

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/secret"
)

// TestSecretFileOnlyItsServerReads: a server's config gives it a secret
// as a file (${secret-file:TOKEN}). It reads the value there, and its
// command line holds only the file's path. A second server, told the
// path, tries to read the file and is refused; and once the first stops,
// the file is gone.
func TestSecretFileOnlyItsServerReads(t *testing.T) {
	t.Parallel()
	o, _ := sandboxOptions(t)
	o.Secrets = func(_ context.Context, _ *config.Server, name string) (string, error) {
		if name == "TOKEN" {
			return "tok-123", nil
		}
		return "", secret.ErrNotFound
	}
	m := newTestManager(t, o)
	keeper := stdioEntry("keeper", "-print-file", config.SecretFileRef("TOKEN"))
	if err := m.Apply(setOf(keeper)); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "keeper", Connected)
	said := regexp.MustCompile(`mcp-testserver: (/\S+) holds "tok-123"`).FindStringSubmatch(info.Stderr)
	if said == nil {
		t.Fatalf("the server did not read its secret's file: %q", info.Stderr)
	}
	file := said[1]
	if !strings.HasPrefix(file, filepath.Join(o.ServersDir, "keeper")+"/") {
		t.Errorf("the file %s is not in the server's own folder", file)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file: %v, %v", fi, err)
	}
	thief := stdioEntry("thief", "-print-file", file)
	if err := m.Apply(setOf(keeper, thief)); err != nil {
		t.Fatal(err)
	}
	info = waitState(t, m, "thief", Connected)
	if strings.Contains(info.Stderr, "tok-123") || !strings.Contains(info.Stderr, "permission denied") {
		t.Errorf("another server read the secret's file: %q", info.Stderr)
	}
	if err := m.Apply(setOf(thief)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Stopped("keeper"):
	case <-time.After(deadline):
		t.Fatal("the server did not stop")
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the secret's file is still there after its server stopped: %v", err)
	}
}
