//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcptray/mcptray/test/authserver"
)

// These tests run the mcptray binary as a person does, against a real
// authorization server and MCP server (test/authserver) and the real
// keychain of make test's private D-Bus session.

// world is one person's computer for mcptray: a temporary HOME with every
// XDG folder and TMPDIR inside it, so that whatever mcptray writes lands
// under root, shared by every mcptray process the test starts. The
// keychain is the test's D-Bus session's.
type world struct {
	t    *testing.T
	bin  string
	root string
	env  []string

	mu      sync.Mutex
	outputs []string // every stdout and stderr captured
}

func newWorld(t *testing.T, extraEnv ...string) *world {
	t.Helper()
	authserver.RequireSessionBus(t)
	w := &world{t: t, bin: Binary(t), root: t.TempDir()}
	dirs := map[string]string{
		"HOME": "home", "XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "cache",
		"XDG_STATE_HOME": "state", "XDG_DATA_HOME": "data", "TMPDIR": "tmp",
	}
	for k, d := range dirs {
		p := filepath.Join(w.root, d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		w.env = append(w.env, k+"="+p)
	}
	browser, err := authserver.BrowserCommand(filepath.Join(w.root, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env,
		"PATH="+os.Getenv("PATH"), "LANG=C.UTF-8",
		"DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"MCPTRAY_BROWSER="+browser)
	w.env = append(w.env, extraEnv...)
	return w
}

// lockDir is where mcptray keeps its refresh locks.
func (w *world) lockDir() string { return filepath.Join(w.root, "config", "mcptray", "locks") }

// command returns an mcptray command whose output is kept.
func (w *world) command(ctx context.Context, out, errOut *bytes.Buffer, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Env = w.env
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (w *world) keep(out, errOut *bytes.Buffer) {
	w.mu.Lock()
	w.outputs = append(w.outputs, out.String(), errOut.String())
	w.mu.Unlock()
}

// run runs mcptray to its end and returns its exit code and output.
func (w *world) run(args ...string) (int, string, string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err := w.command(ctx, &out, &errOut, args...).Run()
	w.keep(&out, &errOut)
	return exitCode(w.t, err), out.String(), errOut.String()
}

// must runs a command that has to succeed.
func (w *world) must(args ...string) string {
	w.t.Helper()
	code, out, errOut := w.run(args...)
	if code != 0 {
		w.t.Fatalf("mcptray %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// signOutAtEnd removes the test's sign-in from the keychain when the test
// ends, so that a keyring outside make test keeps nothing of it.
func (w *world) signOutAtEnd(url string) {
	w.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var out, errOut bytes.Buffer
		_ = w.command(ctx, &out, &errOut, "logout", url).Run()
	})
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running mcptray: %v", err)
	return -1
}

// opens counts the files opened in one folder, through inotify: how a
// test sees a process reach the refresh lock without polling for it.
type opens struct {
	f      *os.File
	mu     sync.Mutex
	n      int
	change chan struct{} // closed and replaced on every open
	done   chan struct{}
}

// watchOpens starts counting the opens of files in dir whose names start
// with prefix.
func watchOpens(t *testing.T, dir, prefix string) *opens {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		t.Fatalf("inotify on %s: %v", dir, err)
	}
	// Non-blocking, so the runtime poller reads it and Close ends the read.
	o := &opens{f: os.NewFile(uintptr(fd), "inotify"), change: make(chan struct{}), done: make(chan struct{})}
	go o.read(prefix)
	t.Cleanup(func() {
		o.f.Close()
		<-o.done
	})
	return o
}

func (o *opens) read(prefix string) {
	defer close(o.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := o.f.Read(buf)
		if err != nil {
			return
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			nameLen := int(binary.NativeEndian.Uint32(b[12:16]))
			end := unix.SizeofInotifyEvent + nameLen
			if end > len(b) {
				break
			}
			name := string(bytes.TrimRight(b[unix.SizeofInotifyEvent:end], "\x00"))
			mask := binary.NativeEndian.Uint32(b[4:8])
			b = b[end:]
			if mask&unix.IN_OPEN != 0 && strings.HasPrefix(name, prefix) {
				o.mu.Lock()
				o.n++
				close(o.change)
				o.change = make(chan struct{})
				o.mu.Unlock()
			}
		}
	}
}

// wait waits until at least n opens were seen, or ctx ends.
func (o *opens) wait(ctx context.Context, n int) error {
	for {
		o.mu.Lock()
		got, ch := o.n, o.change
		o.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// callTogether starts one `mcptray call URL echo` per text at the same time
// and checks that each ends well and prints its text.
func callTogether(t *testing.T, w *world, url string, texts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type proc struct {
		cmd         *exec.Cmd
		out, errOut bytes.Buffer
		text        string
	}
	procs := make([]*proc, len(texts))
	for i, text := range texts {
		p := &proc{text: text}
		p.cmd = w.command(ctx, &p.out, &p.errOut, "call", url, "echo", `{"text":"`+text+`"}`)
		procs[i] = p
	}
	for _, p := range procs {
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range procs {
		err := p.cmd.Wait()
		w.keep(&p.out, &p.errOut)
		if code := exitCode(t, err); code != 0 || !strings.Contains(p.out.String(), p.text) {
			t.Errorf("call %s: exit %d\nstdout: %s\nstderr: %s", p.text, code, p.out.String(), p.errOut.String())
		}
	}
}

// TestRefreshRaceBetweenProcesses: two mcptray processes find the same
// expired token at once and both must refresh it. The authorization server
// rotates refresh tokens and revokes the whole sign-in when one is used
// twice, so the processes must take turns through the refresh lock in
// mcptray's config folder, and the second must take the token the first
// saved in the keychain rather than spend the old refresh token again.
func TestRefreshRaceBetweenProcesses(t *testing.T) {
	t.Parallel()
	t.Run("one refresh serves both", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		srv := authserver.Start()
		t.Cleanup(srv.Close)
		w.signOutAtEnd(srv.MCPURL)

		// A token the server stops taking before its time, as after an
		// early revocation: both processes meet a 401 and refresh.
		if out := w.must("login", srv.MCPURL); !strings.Contains(out, "Signed in to") {
			t.Fatalf("login printed %q", out)
		}
		srv.ExpireAccessTokens()

		// Hold the first refresh until both processes have opened the
		// refresh lock: then both surely found the token expired, and the
		// second is waiting on the first.
		if err := os.MkdirAll(w.lockDir(), 0o700); err != nil {
			t.Fatal(err)
		}
		lockOpens := watchOpens(t, w.lockDir(), "refresh-")
		var hold sync.Once
		srv.BeforeRefresh(func() {
			hold.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := lockOpens.wait(ctx, 2); err != nil {
					t.Errorf("the second mcptray never reached the refresh lock: %v", err)
				}
			})
		})

		callTogether(t, w, srv.MCPURL, "first", "second")
		st := srv.Stats()
		if st.Refreshes != 1 || st.Reuses != 0 || st.MaxUses != 1 || st.Revoked != 0 {
			t.Errorf("the server saw %+v; want one refresh, no refresh token used twice, nothing revoked", st)
		}
		// A revoked sign-in would have sent mcptray to the browser again,
		// and the calls would still have worked: count the sign-ins.
		if st.Authorizations != 1 {
			t.Errorf("%d browser sign-ins; want only the login's", st.Authorizations)
		}

		if out := w.must("call", srv.MCPURL, "echo", `{"text":"third"}`); !strings.Contains(out, "third") {
			t.Errorf("the third call printed %q", out)
		}
		if st := srv.Stats(); st.Authorizations != 1 || st.Revoked != 0 || st.Reuses != 0 {
			t.Errorf("after the third call the server saw %+v; want the one sign-in still good", st)
		}
	})

	t.Run("short-lived tokens are not refreshed at every request", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		srv := authserver.Start()
		t.Cleanup(srv.Close)
		w.signOutAtEnd(srv.MCPURL)

		// Twenty seconds is short, but a fresh token is good for most
		// of it: three processes making their requests at once use the
		// login's token and refresh nothing.
		srv.SetAccessTTL(20 * time.Second)
		w.must("login", srv.MCPURL)
		callTogether(t, w, srv.MCPURL, "first", "second", "third")
		st := srv.Stats()
		if st.Refreshes != 0 || st.Revoked != 0 || st.Authorizations != 1 {
			t.Errorf("the server saw %+v; want no refresh, nothing revoked, one sign-in", st)
		}
	})
}
