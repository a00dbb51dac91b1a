package control

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// TestServerPeer: a server mcptray started (in its job object), and a
// program that server started in turn, hold the control key and ask for
// the trust routes: both are refused, as a sandboxed server is on Linux.
// The same program started by the person (not in a server's job), with
// the same key, is served.
func TestServerPeer(t *testing.T) {
	r := newGuardRig(t, nil)
	key, err := readKey(r.paths)
	if err != nil {
		t.Fatal(err)
	}
	spec := func(out string, child bool) string {
		b, _ := json.Marshal(peerSpec{Socket: SocketPath(r.paths), Key: key, Method: "GET", Path: "/v1/gateway/token", Out: out, Child: child})
		return string(b)
	}
	asServer := func(t *testing.T, child bool) answer {
		t.Helper()
		out := filepath.Join(t.TempDir(), "answer.json")
		s, err := transport.NewStdio(transport.StdioConfig{
			Command: os.Args[0], Args: []string{"-test.run=^$"},
			Env:     map[string]string{peerEnv: spec(out, child)},
			BaseEnv: os.Environ(),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound for failure
		defer cancel()
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		select {
		case <-s.Done():
		case <-ctx.Done():
			t.Fatalf("the server did not end: %s", s.Stderr())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("the server wrote no answer (%v): %s", err, s.Stderr())
		}
		var a peerAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		return a.answer
	}

	t.Run("the person's program", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), peerEnv+"="+spec("", false))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the peer: %v\n%s", err, stderr.String())
		}
		var a peerAnswer
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("the peer printed %q: %v", out, err)
		}
		if a.Status != http.StatusOK || !strings.Contains(a.Body, `"token":"`) {
			t.Errorf("the token for the person's own program = %+v", a.answer)
		}
	})
	t.Run("a server", func(t *testing.T) {
		if a := asServer(t, false); a.Status != http.StatusForbidden || a.Refused != refusedSandbox {
			t.Errorf("the token for a server mcptray started = %+v, want refused", a)
		}
	})
	t.Run("a server's child", func(t *testing.T) {
		if a := asServer(t, true); a.Status != http.StatusForbidden || a.Refused != refusedSandbox {
			t.Errorf("the token for a program a server started = %+v, want refused", a)
		}
	})
}

// TestPipeAccessList: the control pipe admits the person's own account
// and no one else, and its name carries that account, not -1.
func TestPipeAccessList(t *testing.T) {
	p := testPaths(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	me, err := tokenSID(windows.GetCurrentProcessToken())
	if err != nil {
		t.Fatal(err)
	}
	if name := SocketPath(p); !strings.Contains(name, me) || strings.Contains(name, "--1-") {
		t.Errorf("the pipe %s does not carry the account %s", name, me)
	}
	if !strings.Contains(p.ControlDir(), "mcptray-"+config.Account()+"-") || config.Account() != me {
		t.Errorf("the control folder %s, account %q; want the account %s", p.ControlDir(), config.Account(), me)
	}
	// A client waits for an instance that an Accept makes.
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a bound for failure
	defer cancel()
	c, err := dialSocket(ctx, SocketPath(p))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case sc := <-accepted:
		defer sc.Close()
	case <-ctx.Done():
		t.Fatal("the listener did not see the connection")
	}
	h, _ := pipeHandle(c)
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("reading the pipe's access list: %v", err)
	}
	// One entry, allowing the person's account; "GA" reads back as the
	// pipe's own rights.
	if got := sd.String(); strings.Count(got, "(") != 1 || !strings.Contains(got, "(A;;") || !strings.Contains(got, ";;;"+me+")") {
		t.Errorf("the pipe's access list is %s, want one entry: allow %s", got, me)
	}
	// A second mcptray cannot make the pipe again under its feet.
	if _, err := listenSocket(SocketPath(p)); err == nil {
		t.Error("a second pipe of the same name was made while mcptray listens")
	}
}
