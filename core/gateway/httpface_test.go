package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// events reads an event stream's messages as they come.
func events(t *testing.T, body io.Reader) <-chan string {
	t.Helper()
	out := make(chan string, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 64<<10), maxMessage)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- d
			}
		}
	}()
	return out
}

// next is the next message of an event stream.
func next(t *testing.T, ev <-chan string) string {
	t.Helper()
	select {
	case m, ok := <-ev:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return m
	case <-time.After(deadline):
		t.Fatalf("no event within %s", deadline)
	}
	return ""
}

// TestHTTPFaceAnswers: a call with nothing to say before its answer is
// answered application/json; a call with progress is answered with an
// event stream of its progress, in order, then its answer; a server's
// question during a call goes on the call's own stream, and the app's
// answer, posted, reaches the server.
func TestHTTPFaceAnswers(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{"permissions": map[string]string{"mcp__a__ask": "allow", "mcp__a__progress": "allow"}})
	sess := r.initialize(t, http.StatusOK)

	resp, err := http.DefaultClient.Do(r.request(t, sess, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" || !strings.Contains(string(b), `"text":"hi"`) {
		t.Errorf("a plain call: %s, %s\n%s", resp.Status, ct, b)
	}

	resp, err = http.DefaultClient.Do(r.request(t, sess, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__a__progress","arguments":{"pause_ms":5},"_meta":{"progressToken":"p-2"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("a call with progress is answered as %q", ct)
	}
	ev := events(t, resp.Body)
	for i := 1; i <= 3; i++ {
		var n struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if m := next(t, ev); json.Unmarshal([]byte(m), &n) != nil || n.Method != "notifications/progress" || n.Params["progressToken"] != "p-2" || n.Params["progress"] != float64(i) {
			t.Errorf("event %d: %s, want progress %d", i, m, i)
		}
	}
	if m := next(t, ev); !strings.Contains(m, `"id":2`) || !strings.Contains(m, `"done"`) {
		t.Errorf("the answer after the progress: %s", m)
	}
	resp.Body.Close()

	// A question during a call goes on the call's own stream.
	asking := r.initializeWith(t, `{"elicitation":{}}`)
	resp, err = http.DefaultClient.Do(r.request(t, asking, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mcp__a__ask","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev = events(t, resp.Body)
	var q struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if m := next(t, ev); json.Unmarshal([]byte(m), &q) != nil || q.Method != "elicitation/create" || len(q.ID) == 0 {
		t.Fatalf("the call's stream began with %s, want the server's question", m)
	}
	r.post(t, asking, `{"jsonrpc":"2.0","id":`+string(q.ID)+`,"result":{"action":"accept","content":{"name":"Raw","age":3}}}`, http.StatusAccepted)
	if m := next(t, ev); !strings.Contains(m, `"id":3`) || !strings.Contains(m, `Raw`) {
		t.Errorf("the answer after the app's: %s", m)
	}
}

// initializeWith starts a session whose app declares caps.
func (r *rig) initializeWith(t *testing.T, caps string) string {
	t.Helper()
	req := r.request(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}}`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get(sessionHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, id)
	}
	r.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted)
	return id
}

// TestHTTPFaceRefusesNonsense: the status codes of a request the face
// cannot take, as mcp-go's streamable HTTP server gives them.
func TestHTTPFaceRefusesNonsense(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	do := func(method, session, body string, mutate func(*http.Request)) int {
		t.Helper()
		req := r.request(t, session, body)
		req.Method = method
		if body == "" {
			req.Body = nil
		}
		if mutate != nil {
			mutate(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	tests := []struct {
		name   string
		status int
		got    int
	}{
		{"text/plain", http.StatusBadRequest, do(http.MethodPost, sess, list, func(q *http.Request) { q.Header.Set("Content-Type", "text/plain") })},
		{"an unknown protocol version", http.StatusBadRequest, do(http.MethodPost, sess, list, func(q *http.Request) { q.Header.Set("Mcp-Protocol-Version", "1999-01-01") })},
		{"an unknown protocol version (GET)", http.StatusBadRequest, do(http.MethodGet, sess, "", func(q *http.Request) { q.Header.Set("Mcp-Protocol-Version", "1999-01-01") })},
		{"no session", http.StatusNotFound, do(http.MethodPost, "", list, nil)},
		{"GET with no session", http.StatusBadRequest, do(http.MethodGet, "", "", nil)},
		{"another path", http.StatusNotFound, do(http.MethodPost, sess, list, func(q *http.Request) { q.URL.Path = "/other" })},
		{"an answer to nothing", http.StatusAccepted, do(http.MethodPost, sess, `{"jsonrpc":"2.0","id":"mcptray-99","result":{}}`, nil)},
		{"not JSON", http.StatusBadRequest, do(http.MethodPost, sess, `{"jsonrpc":`, nil)}, // mcp-go's parse error
	}
	for _, tt := range tests {
		if tt.got != tt.status {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.status)
		}
	}
}

// TestHTTPFaceCancels: a call ends when its app goes away (in a session,
// and in the sessionless revision, which mcp-go's server answers), and
// when its session ends.
func TestHTTPFaceCancels(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	goAway := func(req *http.Request, ms string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			if resp, err := http.DefaultClient.Do(req.WithContext(ctx)); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		r.waitStderr(t, "a", "mcp-testserver: sleeping "+ms+"ms")
		cancel()
		r.waitStderr(t, "a", "mcp-testserver: sleep cancelled")
	}
	goAway(r.request(t, sess, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600001}}}`), "600001")
	modern := r.request(t, "", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600003},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`)
	modern.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	modern.Header.Set("Mcp-Method", "tools/call")
	modern.Header.Set("Mcp-Name", "mcp__a__sleep")
	goAway(modern, "600003")

	other := r.initialize(t, http.StatusOK)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(r.request(t, other, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":600002}}}`)); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	r.waitStderr(t, "a", "mcp-testserver: sleeping 600002ms")
	end := r.request(t, other, "")
	end.Method, end.Body = http.MethodDelete, nil
	resp, err := http.DefaultClient.Do(end)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatal("the call went on after its session ended")
	}
}

// TestHTTPFaceKeepsConnection: after a call long enough for the face to
// watch whether its app went away, the app's next request on the same
// connection is read and answered.
func TestHTTPFaceKeepsConnection(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(r.face.Status().URL, "http://"), Path))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(deadline))
	rd := bufio.NewReader(c)
	for i, call := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__sleep","arguments":{"ms":` + fmt.Sprint(3*goneAfter.Milliseconds()) + `}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"again"}}}`,
	} {
		req := r.request(t, sess, call)
		if err := req.Write(c); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(rd, req)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), fmt.Sprintf(`"id":%d,"result"`, i+1)) {
			t.Errorf("call %d: %s\n%s", i+1, resp.Status, b)
		}
	}
	if !strings.Contains(string(r.post(t, sess, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, http.StatusOK)), `"result"`) {
		t.Error("the session does not answer a ping after the calls")
	}
}

// TestHTTPFaceTooLarge: a message over 32 MiB is refused in plain words.
func TestHTTPFaceTooLarge(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"` + strings.Repeat("x", maxMessage) + `"}}}`
	if b := r.post(t, sess, big, http.StatusRequestEntityTooLarge); !strings.Contains(string(b), "32 MiB at most") {
		t.Errorf("the refusal says %q", b)
	}
}

// TestHTTPFaceHeaders: a request with 32 KiB of headers is served (some
// apps send long ones); one with more than 64 KiB is refused in plain
// words.
func TestHTTPFaceHeaders(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	sess := r.initialize(t, http.StatusOK)
	for _, tt := range []struct {
		size   int
		status int
	}{{32 << 10, http.StatusOK}, {80 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req := r.request(t, sess, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		req.Header.Set("X-Long", strings.Repeat("x", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || tt.status != http.StatusOK && !strings.Contains(string(b), "64 KiB at most") {
			t.Errorf("%d bytes of headers: %s\n%s", tt.size, resp.Status, b)
		}
	}
}

// TestHTTPFaceForgetsIdle: a session unused for sessionIdle is forgotten
// and its app's record ended; one with a listening stream open is kept.
func TestHTTPFaceForgetsIdle(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	idle, listening := r.initialize(t, http.StatusOK), r.initialize(t, http.StatusOK)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	get := r.request(t, listening, "")
	get.Method, get.Body = http.MethodGet, nil
	resp, err := http.DefaultClient.Do(get.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f := r.gw.httpFace()
	if s := f.ids.get(listening); s == nil || s.listening.Load() != 1 {
		t.Fatal("the listening stream is not counted")
	}
	f.sweep(time.Now().Add(sessionIdle + time.Minute))
	r.post(t, idle, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusNotFound)
	r.post(t, listening, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, http.StatusOK)
	ended := false
	for _, s := range r.gw.Sessions() {
		ended = ended || s.Ended
	}
	if !ended {
		t.Errorf("the idle session's record did not end: %+v", r.gw.Sessions())
	}
}
