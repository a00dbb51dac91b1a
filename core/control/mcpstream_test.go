package control_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/service"
)

// initialize is an app's first message.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cursor-vscode","version":"1.7.0"}}}` + "\n"

// begin sends initialize on w and checks the gateway's answer on r.
func begin(t *testing.T, w io.Writer, r *bufio.Reader) {
	t.Helper()
	if _, err := io.WriteString(w, initialize); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo":{"name":"mcptray"`) {
		t.Fatalf("initialize was answered %q (%v)", line, err)
	}
	io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

// waitGone waits until Cursor's one session has ended and it is not in use.
func (r *gatewayRig) waitGone(t *testing.T, ctx context.Context) service.App {
	t.Helper()
	notices, err := r.cl.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		a := r.app(t, "Cursor")
		if len(a.Sessions) == 1 && a.Sessions[0].Ended && a.State != service.AppInUse {
			return a
		}
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatalf("Cursor's session did not end: %+v", a)
		}
	}
}

// TestKilledAppEndsItsSession: an app's mcptray stdio that dies (killed
// with its app) drops its connection; the gateway then ends the session,
// and the app no longer shows as in use.
func TestKilledAppEndsItsSession(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	if err := os.MkdirAll(filepath.Join(r.paths.Home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	st, err := control.OpenStream(ctx, r.paths, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	begin(t, st, bufio.NewReader(st))
	if a := r.app(t, "Cursor"); a.State != service.AppInUse {
		t.Fatalf("with its session open: %+v", a)
	}
	st.Close()
	r.waitGone(t, ctx)
}

// TestCopyStreamStopping: a copying mcptray stdio whose mcptray stops says
// so; one whose app closed its end ends without an error.
func TestCopyStreamStopping(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	copying := func() (io.WriteCloser, *bufio.Reader, chan error) {
		st, err := control.OpenStream(ctx, r.paths, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- st.Copy(inR, outW); outW.Close() }()
		out := bufio.NewReader(outR)
		begin(t, inW, out)
		go io.Copy(io.Discard, out)
		return inW, out, done
	}
	in, _, done := copying()
	in.Close()
	if err := <-done; err != nil {
		t.Errorf("Copy after the app closed its end: %v", err)
	}
	_, _, done = copying()
	r.stop()
	if err := <-done; !errors.Is(err, control.ErrStopping) {
		t.Errorf("Copy when mcptray stopped: %v, want ErrStopping", err)
	}
}
