package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The ways to another program's socket other than socket(AF_UNIX): a
// socket made with socketpair and then pointed at a named socket, and a
// socket the server holds when it starts.

// socketProbe is the probe's socket tries (probe):
//
//   - pairsend:PATH, pairmsg:PATH: a datagram socketpair, and a datagram
//     sent by sendto (sendmsg) to the named socket at PATH;
//   - pairconnect:PATH: a datagram socketpair connected again, to PATH
//     (datagram sockets may), and written to;
//   - pairstream:PATH, pairseqpacket:PATH: a stream (seqpacket) socketpair
//     connected to PATH, then sent to with PATH as the address; "ok" means
//     the socketpair was made and it could not connect (the test's socket
//     says whether the send reached it);
//   - pair:TYPE: a socketpair of TYPE (stream, seqpacket), as runtimes
//     make their children's pipes;
//   - fds: every file descriptor above stderr that is a socket, which the
//     server would hold from outside.
func socketProbe(op, arg string) error {
	types := map[string]int{"pairsend": unix.SOCK_DGRAM, "pairmsg": unix.SOCK_DGRAM, "pairconnect": unix.SOCK_DGRAM,
		"pairstream": unix.SOCK_STREAM, "pairseqpacket": unix.SOCK_SEQPACKET}
	switch op {
	case "fds":
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return err
		}
		var held []string
		for _, e := range entries {
			fd, _ := strconv.Atoi(e.Name())
			if link, _ := os.Readlink("/proc/self/fd/" + e.Name()); fd > 2 && strings.HasPrefix(link, "socket:") {
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil { // not ReadDir's own
					held = append(held, fmt.Sprintf("%d (%s)", fd, link))
				}
			}
		}
		if len(held) > 0 {
			return fmt.Errorf("it holds sockets from outside: %s", strings.Join(held, ", "))
		}
		return nil
	case "pair":
		typ := map[string]int{"stream": unix.SOCK_STREAM, "seqpacket": unix.SOCK_SEQPACKET}[arg]
		fds, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		if _, err := unix.Write(fds[0], []byte("x")); err != nil {
			return err
		}
		_, err = unix.Read(fds[1], make([]byte, 1))
		return err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, types[op]|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	to := &unix.SockaddrUnix{Name: arg}
	msg := []byte("a datagram from a server")
	switch op {
	case "pairsend":
		return unix.Sendto(fds[0], msg, 0, to)
	case "pairmsg":
		return unix.Sendmsg(fds[0], msg, nil, to, 0)
	case "pairconnect":
		if err := unix.Connect(fds[0], to); err != nil {
			return err
		}
		_, err := unix.Write(fds[0], msg)
		return err
	}
	// Stream and seqpacket: connected to each other, and nothing else.
	// The kernel says so (EISCONN, or EPROTOTYPE for a socket of another
	// type); what it does with the address of a send, the test's socket
	// tells.
	if err := unix.Connect(fds[0], to); err == nil {
		return errors.New("it connected to " + arg)
	}
	_ = unix.Sendto(fds[0], msg, 0, to)
	return nil
}

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
					path, argv, env, err := Command(launcher, w.policy, self, []string{"probe", "probe", "fds:"}, os.Environ())
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
