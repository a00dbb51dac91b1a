package gateway

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request the app cancelled (notifications/cancelled) gets no answer:
// MCP says a receiver of the notification should not send one, and an
// app that has forgotten the request's id may have given it to the next.
// The tool here really sleeps, and really stops when cancelled.

// modernMeta makes a tools/call of the sessionless revision, which
// mcp-go's server answers rather than the gateway's direct calls.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// TestStreamCancelledGetsNoAnswer: on the stdio face, neither a direct
// call nor one mcp-go answers is answered once the app cancelled it; the
// app's next request is.
func TestStreamCancelledGetsNoAnswer(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.waitTool("mcp__a__sleep")
	a := r.stream()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(a.out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(deadline)
	// next returns the next line that holds want, failing on one that
	// holds refuse first.
	next := func(want, refuse string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the stream ended before %s", want)
				}
				if refuse != "" && strings.Contains(l, refuse) {
					t.Fatalf("the gateway answered a request the app had cancelled: %s", l)
				}
				if strings.Contains(l, want) {
					return l
				}
			case <-timeout:
				t.Fatalf("nothing with %s came", want)
			}
		}
	}
	io.WriteString(a.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`+"\n")
	next(`"id":1`, "")
	io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	for i, c := range []struct{ what, id, ms, meta string }{
		{"a direct call", "7", "600011", ""},
		{"a call mcp-go answers", `"seven"`, "600012", "," + modernMeta},
	} {
		io.WriteString(a.in, `{"jsonrpc":"2.0","id":`+c.id+`,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":`+c.ms+`}`+c.meta+`}}`+"\n")
		r.waitStderr(t, "a", "mcp-testserver: sleeping "+c.ms+"ms")
		io.WriteString(a.in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+c.id+`,"reason":"the person stopped it"}}`+"\n")
		r.waitStderrTimes(t, "a", "mcp-testserver: sleep cancelled", i+1)
		// The app's next requests are answered, and nothing for the
		// cancelled one came before them.
		io.WriteString(a.in, `{"jsonrpc":"2.0","id":100,"method":"ping"}`+"\n")
		next(`"id":100`, `"id":`+c.id+`,`)
		io.WriteString(a.in, `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"after"}}}`+"\n")
		next(`"id":101`, `"id":`+c.id+`,`)
		t.Logf("%s: no answer", c.what)
	}
}

// waitStderrTimes waits until a server's error output holds line n times.
func (r *rig) waitStderrTimes(t *testing.T, server, line string, n int) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for {
		snap, err := r.svc.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sv, _ := snap.Find(server)
		if strings.Count(sv.Stderr, line) >= n {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("waited %s for %q %d times in %s's error output:\n%s", deadline, line, n, server, sv.Stderr)
		}
	}
}

// TestHTTPCancelledGetsNoAnswer: on the HTTP face, a POST whose request
// the app cancelled ends without the request's answer: an event stream
// (what a request's POST is answered with) that ends with none.
func TestHTTPCancelledGetsNoAnswer(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.waitTool("mcp__a__sleep")
	sess := r.initialize(t, http.StatusOK)
	type reply struct {
		status int
		body   string
		err    error
	}
	got := make(chan reply, 1)
	go func() {
		resp, err := http.DefaultClient.Do(r.request(t, sess, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600021}}}`))
		if err != nil {
			got <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- reply{resp.StatusCode, string(b), err}
	}()
	r.waitStderr(t, "a", "mcp-testserver: sleeping 600021ms")
	r.post(t, sess, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the person stopped it"}}`, http.StatusAccepted)
	r.waitStderr(t, "a", "mcp-testserver: sleep cancelled")
	select {
	case rep := <-got:
		if rep.err != nil {
			t.Fatal(rep.err)
		}
		if strings.Contains(rep.body, `"id":7`) || rep.status != http.StatusOK {
			t.Errorf("the cancelled request's POST: %d %q, want no answer to it", rep.status, rep.body)
		}
	case <-time.After(deadline):
		t.Fatal("the cancelled request's POST was never ended")
	}
	// The session goes on.
	if b := r.post(t, sess, `{"jsonrpc":"2.0","id":8,"method":"ping"}`, http.StatusOK); !strings.Contains(string(b), `"id":8`) {
		t.Errorf("a ping after the cancel: %s", b)
	}
}
