//go:build unix

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
)

// handedOver opens a session that hands over a pair of pipes, as mcptray
// stdio hands over its stdin and stdout, and returns the app's ends.
func handedOver(t *testing.T, ctx context.Context, r *gatewayRig) (*control.Stream, *os.File, *bufio.Reader) {
	t.Helper()
	stdin, app := mustPipe(t)
	fromGateway, stdout := mustPipe(t)
	if !control.CanHandOver(stdin) || !control.CanHandOver(stdout) {
		t.Fatal("pipes cannot be handed over")
	}
	st, err := control.OpenStream(ctx, r.paths, stdin, stdout)
	if err != nil {
		t.Fatal(err)
	}
	// mcptray holds its own copies now; the app's answers must come
	// through them.
	stdin.Close()
	stdout.Close()
	out := bufio.NewReader(fromGateway)
	begin(t, app, out)
	return st, app, out
}

func mustPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestHandOver: mcptray stdio's stdin and stdout, handed over, are read
// and written by the running mcptray itself. When the app closes its end
// the session ends, mcptray lets go of both (the app sees the end of its
// server's output), and Wait returns nil.
func TestHandOver(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	if err := os.MkdirAll(filepath.Join(r.paths.Home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	st, app, out := handedOver(t, ctx, r)
	if a := r.app(t, "Cursor"); len(a.Sessions) != 1 || a.Sessions[0].Ended {
		t.Fatalf("with its session open: %+v", a)
	}
	app.Close()
	if err := st.Wait(); err != nil {
		t.Errorf("Wait after the app closed its end: %v", err)
	}
	// Its end comes, after what was on its way: the gateway may have told
	// the app of a change to its tools meanwhile (it starts with the test).
	rest, err := io.ReadAll(out)
	if err != nil {
		t.Errorf("the app's end after the session: %v", err)
	}
	for line := range strings.Lines(string(rest)) {
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","method":"notifications/`) {
			t.Errorf("the app's end after the session: %q; want only notifications before its end", rest)
			break
		}
	}
	r.waitGone(t, ctx)
}

// TestHandOverStopping: when mcptray stops, a handed-over session's Wait
// says so, and the app sees its server's output end.
func TestHandOverStopping(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	st, _, out := handedOver(t, ctx, r)
	r.stop()
	if err := st.Wait(); !errors.Is(err, control.ErrStopping) {
		t.Errorf("Wait when mcptray stopped: %v, want ErrStopping", err)
	}
	if _, err := io.ReadAll(out); err != nil {
		t.Errorf("the app's end after mcptray stopped: %v", err)
	}
}

// TestCannotHandOverAFile: only pipes and sockets are handed over.
func TestCannotHandOverAFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if control.CanHandOver(f) || control.CanHandOver(nil) {
		t.Error("a plain file (or none) can be handed over")
	}
}
