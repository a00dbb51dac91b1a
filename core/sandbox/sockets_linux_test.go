package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The ways to another program's socket other than socket(AF_UNIX): a
// socket made with socketpair and then pointed at a named socket, and a
// socket the server holds when it starts.

// namedDgram is a named datagram socket, as journald's
// /run/systemd/journal/socket and systemd's notify socket are, and
// received tells what reached it: every datagram sent before is queued
// by the time the probe has exited.
func namedDgram(t *testing.T, dir string) (string, func() int) {
	t.Helper()
	path := filepath.Join(dir, "journal")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o777); err != nil { // as journald's is
		t.Fatal(err)
	}
	return path, func() int {
		n := 0
		for {
			if _, _, err := unix.Recvfrom(fd, make([]byte, 256), unix.MSG_DONTWAIT); err != nil {
				return n
			}
			n++
		}
	}
}

// TestSocketpairDoors: a socketpair pointed at a named socket reaches
// nothing, through both launchers, in namespaces and without; the
// socketpairs runtimes make for their children still work.
func TestSocketpairDoors(t *testing.T) {
	if ABI() < 6 || !SeccompSupported() {
		t.Skipf("the test needs Landlock 6 (this kernel has %d) and a filter for this architecture", ABI())
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			w := newIsolatedWorld(t, true, namespaces)
			// One where the server may write, one where it may not even
			// read: neither is Landlock's to refuse before ABI 9.
			inData, inDataGot := namedDgram(t, w.data)
			outside, outsideGot := namedDgram(t, w.outside)
			stream, streamGot := namedSocket(t, w.outside)
			want := map[string]string{"pair:stream": "ok", "pair:seqpacket": "ok"}
			for _, target := range []string{inData, outside} {
				for _, op := range []string{"pairsend", "pairmsg", "pairconnect"} {
					want[op+":"+target] = "refused"
				}
				want["pairseqpacket:"+target] = "ok"
				want["pairstream:"+target] = "ok"
			}
			want["pairstream:"+stream] = "ok"
			want["pairseqpacket:"+stream] = "ok"
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					expectProbe(t, launcher, w.policy, want)
					if n := inDataGot() + outsideGot(); n > 0 {
						t.Errorf("%d datagrams reached named sockets outside the sandbox", n)
					}
					if n := streamGot(); n > 0 {
						t.Errorf("a named stream socket was reached %d times", n)
					}
				})
			}
		})
	}
}

// TestHeldSockets: a socket mcptray holds without close-on-exec (one it
// was itself handed at its start, say) does not reach the server: it
// starts holding no socket at all, only its pipes.
func TestHeldSockets(t *testing.T) {
	if ABI() < 1 || !SeccompSupported() {
		t.Skip("no Landlock or no filter here")
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			w := newIsolatedWorld(t, true, namespaces)
			sock, _ := namedSocket(t, w.outside)
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			held, err := c.(*net.UnixConn).File()
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					self := mustExe(t)
					path, argv, env, err := Command(launcher, w.policy, self, []string{"probe", ProbeArg, "fds:"}, os.Environ())
					if err != nil {
						t.Fatal(err)
					}
					cmd := &exec.Cmd{Path: path, Args: argv, Env: env, ExtraFiles: []*os.File{held}}
					out, err := startAndWait(cmd, w.policy)
					if err != nil {
						t.Fatalf("the probe: %v\n%s", err, out)
					}
					if !strings.Contains(out, "fds: ok") {
						t.Errorf("the server starts holding a socket from outside: %s", out)
					}
				})
			}
		})
	}
}

// startAndWait starts cmd in p (serving no proxy) and returns its output.
func startAndWait(cmd *exec.Cmd, p Policy) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		return "", err
	}
	if ln != nil {
		defer ln.Close()
		go acceptAndClose(ln)
	}
	err = cmd.Wait()
	return out.String(), err
}
