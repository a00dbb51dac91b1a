package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The doors a hostile server tried out of its sandbox, each tried again
// here by a probe in the sandbox, through both launchers, in namespaces of
// its own where this computer allows them and in the fallback without.

// modes are the two ways a server runs on Linux: in namespaces of its own
// (where the computer lets the launcher make them) and without.
func modes(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{"fallback": false}
	if Isolation(mustExe(t)) {
		out["namespaces"] = true
	} else {
		t.Log("this computer does not let the launcher make namespaces: only the fallback is tried")
	}
	return out
}

// namedSocket listens on a named Unix socket, as the session bus, an
// ssh-agent and mcptray's own control socket do, and counts connections.
func namedSocket(t *testing.T, dir string) (string, func() int) {
	t.Helper()
	path := filepath.Join(dir, "bus")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan struct{}, 64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			got <- struct{}{}
			c.Close()
		}
	}()
	return path, func() int { return len(got) }
}

// TestDoorsShut: named sockets (door 2, and with them mcptray's control
// socket, door 1), UDP (door 3), the proxy's port at another address
// (door 4) and io_uring are refused; the proxy still answers.
func TestDoorsShut(t *testing.T) {
	if ABI() < 6 || !SeccompSupported() {
		t.Skipf("the test needs Landlock 6 (this kernel has %d) and a filter for %s", ABI(), os.Getenv("GOARCH"))
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			w := newIsolatedWorld(t, true, namespaces)
			// The socket lives where the server may write (its own data
			// folder): Landlock alone would let it connect there.
			sock, connections := namedSocket(t, w.data)
			udp, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer udp.Close()
			// Listeners at the proxy's port on other loopback addresses:
			// in its own network the server finds nothing there, and in
			// the fallback Landlock's rule (a port, not an address) lets
			// it through; either way it must not reach them.
			other, reached := []string{}, make(chan string, 16)
			for _, host := range []string{"127.0.0.2", "::1"} {
				addr := net.JoinHostPort(host, strconv.Itoa(w.proxyPort))
				l, err := net.Listen("tcp", addr)
				if err != nil {
					continue
				}
				defer l.Close()
				go func() {
					for {
						c, err := l.Accept()
						if err != nil {
							return
						}
						reached <- addr
						c.Close()
					}
				}()
				other = append(other, "tcp:"+addr)
			}
			want := map[string]string{
				"unix:" + sock:                           "refused",
				"abstract:mcptray-test-" + mode:          "refused",
				"udp:" + udp.LocalAddr().String():        "refused",
				"uring:":                                 "refused",
				"keyring:":                               "refused",
				"connect:" + strconv.Itoa(w.proxyPort):   "ok",
				"connect:" + strconv.Itoa(w.refusedPort): "refused",
			}
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					got := expectProbe(t, launcher, w.policy, want, other...)
					for _, o := range other {
						t.Logf("%s: %s", o, got[o])
					}
				})
			}
			switch {
			case namespaces && len(reached) > 0:
				t.Errorf("the server reached the proxy's port at %s", <-reached)
			case !namespaces && !strings.Contains(Protection(w.policy).Words, "another address"):
				// Landlock's rule is a port: without a network of its
				// own, the words must say what is left open.
				t.Errorf("the fallback's words do not say that port %d at another address can be reached: %q", w.proxyPort, Protection(w.policy).Words)
			}
			if n := connections(); n != 0 {
				t.Errorf("the named socket was reached %d times", n)
			}
			_ = udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
				t.Errorf("a datagram of %d bytes left the sandbox", n)
			}
		})
	}
}

// TestSocketsGranted: a server whose command is docker's client (or that
// the person let use sockets) may connect to a named socket.
func TestSocketsGranted(t *testing.T) {
	if ABI() < 1 || !SeccompSupported() {
		t.Skip("no Landlock or no filter here")
	}
	w := newWorld(t, true)
	sock, connections := namedSocket(t, w.data)
	p := w.policy
	p.Sockets = true
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			if got := runProbe(t, launcher, p, "unix:"+sock); got["unix:"+sock] != "ok" {
				t.Errorf("with sockets granted, a named socket was %s", got["unix:"+sock])
			}
		})
	}
	if connections() == 0 {
		t.Error("the socket was never reached")
	}
}

// TestDetachedEnds: a grandchild in a session of its own, left behind by
// the server (door 6), ends with it, whether the server ends by itself or
// mcptray stops it (SIGTERM to its group, as transport's stop does), and
// in namespaces of its own also when the launcher mcptray started is
// killed (SIGKILL to it alone: its init, pid 1 of the server's PID
// namespace, is another process, which must end with it).
func TestDetachedEnds(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			w := newIsolatedWorld(t, true, namespaces)
			for name, launcher := range launchers(t) {
				stops := []string{"exits", "stopped"}
				if namespaces {
					stops = append(stops, "killed")
				}
				for _, stop := range stops {
					t.Run(name+"/"+stop, func(t *testing.T) {
						marker := fmt.Sprintf("%d.%d", 1000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
						tries := []string{"detach:" + marker}
						if stop != "exits" {
							tries = append(tries, "wait:")
						}
						self := mustExe(t)
						path, argv, env, err := Command(launcher, w.policy, self, append([]string{"probe", ProbeArg}, tries...), os.Environ())
						if err != nil {
							t.Fatal(err)
						}
						ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
						defer cancel()
						cmd := &exec.Cmd{Path: path, Args: argv, Env: env, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}, WaitDelay: 10 * time.Second}
						// A pipe of the test's own, which Wait does not close:
						// the probe waits on it until the test ends.
						stdinR, stdin, err := os.Pipe()
						if err != nil {
							t.Fatal(err)
						}
						cmd.Stdin = stdinR
						var out lockedBuffer
						cmd.Stdout = &out
						ln, err := Start(cmd, w.policy, (*exec.Cmd).Start)
						stdinR.Close()
						if err != nil {
							t.Fatal(err)
						}
						if ln != nil {
							defer ln.Close()
						}
						defer stdin.Close()
						if stop != "exits" {
							// Once the probe says so, the grandchild runs and the
							// probe waits for stdin.
							waitFor(ctx, t, "the grandchild to start", func() bool { return strings.Contains(out.String(), "detach:"+marker+" ok") })
							if stop == "stopped" {
								_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
							} else {
								_ = cmd.Process.Kill()
							}
						}
						_ = cmd.Wait()
						if stop == "killed" {
							// The kernel ends the namespace's processes a moment
							// after its init.
							waitFor(ctx, t, "the server's processes to end", func() bool { return len(livingWith(marker)) == 0 })
						}
						if !strings.Contains(out.String(), "detach:"+marker+" ok") {
							t.Fatalf("the probe did not leave its grandchild: %q", out.String())
						}
						if left := livingWith(marker); len(left) > 0 {
							for _, pid := range left {
								_ = syscall.Kill(pid, syscall.SIGKILL)
							}
							t.Errorf("the server's detached grandchild outlived it (pids %v)", left)
						}
					})
				}
			}
		})
	}
}

// waitFor waits until ok, or fails the test at ctx's end.
func waitFor(ctx context.Context, t *testing.T, what string, ok func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// lockedBuffer is a bytes.Buffer that a test may read while a process
// writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
