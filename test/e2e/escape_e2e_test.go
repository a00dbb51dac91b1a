//go:build linux

package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestHostileServerStaysIn runs the real mcptray serve with a server that
// tries, from inside its sandbox, what a hostile one that read mcptray's
// source found open: to turn its own sandbox off and take the gateway's
// token over mcptray's control socket, to reach another named socket (the
// session bus, say), to read ~/.ssh and to send a datagram. Each is
// refused, and its sandbox is still on afterwards.
func TestHostileServerStaysIn(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 6 || !sandbox.SeccompSupported() {
		t.Skip("the test needs Landlock 6 and the launcher's filter")
	}
	s := startServe(t, Binary(t), TestServer(t))
	home := strings.TrimPrefix(s.env[0], "HOME=")
	if out, err := s.run("add", "probe", "--", s.testServer, "-name", "probe", "-escape"); err != nil {
		t.Fatalf("mcptray add: %v\n%s", err, out)
	}
	deadline := time.Now().Add(serveDeadline)
	for {
		out, _ := s.run("list")
		if strings.Contains(out, "probe  user   ready") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe did not connect:\n%s\n%s", out, s.output())
		}
		time.Sleep(50 * time.Millisecond) // a poll of the running mcptray, with a deadline
	}

	key := filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("a private key"), 0o600); err != nil {
		t.Fatal(err)
	}
	bus, err := net.Listen("unix", filepath.Join(t.TempDir(), "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	reached := make(chan struct{}, 8)
	go func() {
		for {
			c, err := bus.Accept()
			if err != nil {
				return
			}
			reached <- struct{}{}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	// The paths mcptray serve has, from its environment.
	paths, err := config.NewPaths("linux", func(k string) (string, bool) {
		for _, kv := range s.env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v, true
			}
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{
		"control": control.SocketPath(paths), "socket": bus.Addr().String(),
		"read": key, "udp": udp.LocalAddr().String(),
	})
	out, err := s.run("call", "probe", mcpserver.EscapeTool, string(args))
	t.Logf("what the server got:\n%s", out)
	if err != nil {
		t.Fatalf("mcptray call probe escape: %v\n%s", err, out)
	}
	for _, try := range []string{"switch", "token", "socket", "read", "udp"} {
		if !strings.Contains(out, try+": refused") {
			t.Errorf("%s was not refused:\n%s", try, out)
		}
	}
	if len(reached) > 0 {
		t.Error("the server reached the named socket")
	}
	_ = udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Error("a datagram left the sandbox")
	}
	if out, err := s.run("sandbox", "probe"); err != nil || strings.Contains(out, "turned its sandbox off") || !strings.Contains(out, "files and network protected") {
		t.Errorf("mcptray sandbox probe after the tries: %v\n%s", err, out)
	}
}
