//go:build unix

package gateway

import (
	"net"
	"testing"
	"time"
)

// tcpPair is both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// TestWatchConnSeesTheEnd: an app that closes its connection is seen,
// though the server's read deadline for the request has passed.
func TestWatchConnSeesTheEnd(t *testing.T) {
	server, client := tcpPair(t)
	server.SetReadDeadline(aLongTimeAgo) // the server's, for the request's head
	gone := make(chan struct{})
	stop := watchConn(server, 0, func() { close(gone) })
	defer stop()
	client.Close()
	select {
	case <-gone:
	case <-time.After(deadline):
		t.Fatal("the closed connection went unseen")
	}
}

// TestWatchConnStops: stop ends a watch that waits, and the connection
// reads as before; the app's next request is not taken for its end.
func TestWatchConnStops(t *testing.T) {
	server, client := tcpPair(t)
	gone := make(chan struct{}, 1)
	w := newConnWatch(server, 0, func() { gone <- struct{}{} })
	if w == nil {
		t.Fatal("a TCP connection cannot be watched")
	}
	waitFor(t, "the watch to start", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.running != nil })
	w.stop()
	if _, err := client.Write([]byte("next")); err != nil {
		t.Fatal(err)
	}
	server.SetReadDeadline(time.Now().Add(deadline))
	b := make([]byte, 4)
	if n, err := server.Read(b); err != nil || string(b[:n]) != "next" {
		t.Fatalf("after the watch: read %q, %v", b[:n], err)
	}

	// A request that comes while the watch runs ends the watch, not the
	// request.
	w = newConnWatch(server, 0, func() { gone <- struct{}{} })
	if _, err := client.Write([]byte("more")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the watch to end", func() bool {
		w.mu.Lock()
		running := w.running
		w.mu.Unlock()
		if running == nil {
			return false
		}
		select {
		case <-running:
			return true
		default:
			return false
		}
	})
	w.stop()
	select {
	case <-gone:
		t.Fatal("the app's next request was taken for its end")
	default:
	}
	if n, err := server.Read(b); err != nil || string(b[:n]) != "more" {
		t.Fatalf("after the watch: read %q, %v", b[:n], err)
	}
}

// waitFor waits until cond holds, looking again every millisecond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("waited %s for %s", deadline, what)
		}
	}
}
