package control

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSandboxedPeer: a program in a user and PID namespace of its own, as
// mcptray's sandbox runs servers, is refused the trust routes even though
// it holds the control key; the same program in mcptray's own PID
// namespace, with the same key, is served.
func TestSandboxedPeer(t *testing.T) {
	t.Parallel()
	r := newGuardRig(t, nil)
	key, err := readKey(r.paths)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Fatal(err)
	}
	ask := func(t *testing.T, sandboxed bool, method, path, body string) peerAnswer {
		t.Helper()
		spec, _ := json.Marshal(peerSpec{Socket: SocketPath(r.paths), Key: key, Method: method, Path: path, Body: body})
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound for failure
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), peerEnv+"="+string(spec))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if sandboxed {
			uid, gid := os.Getuid(), os.Getgid()
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
				UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
				GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
				GidMappingsEnableSetgroups: false,
			}
		}
		out, err := cmd.Output()
		if sandboxed && cmd.Process == nil && (errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOSPC)) {
			t.Skipf("this system does not let an unprivileged user make namespaces: %v", err)
		}
		if err != nil {
			t.Fatalf("the peer: %v\n%s", err, stderr.String())
		}
		var a peerAnswer
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("the peer printed %q: %v", out, err)
		}
		if a.NS == "" || (a.NS != mine) != sandboxed {
			t.Fatalf("the peer's PID namespace %q, mcptray's %q: sandboxed=%v does not hold", a.NS, mine, sandboxed)
		}
		return a
	}

	t.Run("own namespace", func(t *testing.T) {
		if a := ask(t, false, "GET", "/v1/gateway/token", ""); a.Status != http.StatusOK || !strings.Contains(a.Body, `"token":"`) {
			t.Errorf("the token from mcptray's own namespace = %+v", a.answer)
		}
	})
	t.Run("sandbox's namespace", func(t *testing.T) {
		for _, rt := range []struct{ method, path, body string }{
			{"GET", "/v1/gateway/token", ""},
			{"POST", "/v1/sandbox/switch", `{"name":"probe","on":false}`},
			{"POST", "/v1/pins/accept", `{"name":"probe"}`},
		} {
			a := ask(t, true, rt.method, rt.path, rt.body)
			if a.Status != http.StatusForbidden || a.Refused != refusedSandbox || !strings.Contains(a.Body, "cannot change what mcptray trusts") {
				t.Errorf("%s %s from another PID namespace, with the key = %+v, want refused", rt.method, rt.path, a.answer)
			}
		}
		if sb, err := r.svc.SandboxOf(t.Context(), "probe"); err != nil || sb.Off {
			t.Errorf("probe's sandbox after the sandboxed peer asked: off=%v, %v", sb.Off, err)
		}
		// The liveness probe stays open to it.
		if a := ask(t, true, "GET", "/v1/hello", ""); a.Status != http.StatusOK {
			t.Errorf("hello from another PID namespace = %+v", a.answer)
		}
	})
}

// TestOtherUserPeer: a program of another user that reaches the socket
// (here its folders are opened to all, as a careless chmod would) and
// holds the control key is never served: its connection is closed before
// a byte is read.
func TestOtherUserPeer(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can start a program as another user")
	}
	t.Parallel()
	r := newGuardRig(t, nil)
	key, err := readKey(r.paths)
	if err != nil {
		t.Fatal(err)
	}
	sock := SocketPath(r.paths)
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(sock); d != filepath.Dir(d) && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The tests' own binary, where the other user may run it.
	bin := filepath.Join(filepath.Dir(sock), "peer.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(peerSpec{Socket: sock, Key: key, Method: "GET", Path: "/v1/gateway/token"})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound for failure
	defer cancel()
	var stderr strings.Builder
	var out []byte
	// The copy was open for writing while other tests of this process
	// forked: a child that has not executed yet still holds it, and the
	// kernel refuses to run it (text file busy) until that child has.
	for {
		cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), peerEnv+"="+string(spec))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
		stderr.Reset()
		cmd.Stderr = &stderr
		out, err = cmd.Output()
		if !errors.Is(err, syscall.ETXTBSY) || ctx.Err() != nil {
			break
		}
		runtime.Gosched()
	}
	if err == nil {
		t.Fatalf("another user's program was answered: %s", out)
	}
	// Go's HTTP client says "server closed idle connection" when the
	// socket was closed before its request went out, as it is when the
	// endpoint refuses the peer at once.
	closed := false
	for _, words := range []string{"EOF", "reset", "broken pipe", "server closed idle connection"} {
		closed = closed || strings.Contains(stderr.String(), words)
	}
	if !closed {
		t.Errorf("another user's program failed otherwise than by its connection being closed: %v\n%s", err, stderr.String())
	}
}
