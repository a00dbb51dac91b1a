package conn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeighbourLinkThroughManager: server B may write a shared folder (on
// its command line); server A's command line names a folder in it, which
// B replaced with a link to ~/.ssh. Started together by the manager,
// through the real launcher, A reads nothing of ~/.ssh.
func TestNeighbourLinkThroughManager(t *testing.T) {
	t.Parallel()
	o, home := sandboxOptions(t)
	shared := filepath.Join(home, "shared")
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(shared, "data")
	if err := os.Symlink(filepath.Join(home, ".ssh"), data); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, o)
	a := stdioEntry("a", "-print-file", filepath.Join(data, "id_ed25519"), "-say", data)
	b := stdioEntry("b", "-say", shared)
	if err := m.Apply(setOf(a, b)); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "a", Connected)
	if strings.Contains(info.Stderr, "secret") || !strings.Contains(info.Stderr, "permission denied") {
		t.Errorf("A read ~/.ssh through B's link: %q", info.Stderr)
	}
}
