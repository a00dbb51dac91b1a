package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestQuickResultReadsAsMCPGo: whatever quickResult reads, it reads as
// mcp.ParseCallToolResult does, and the usual results are read quickly;
// anything else is left to mcp-go.
func TestQuickResultReadsAsMCPGo(t *testing.T) {
	t.Parallel()
	quick := []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		` { "isError" : true , "content" : [ { "text" : "a" , "type" : "text" } , {"type":"text","text":""} ] } `,
		`{"content":[],"isError":false}`,
		`{"content":[{"type":"text","text":"h\u00e9llo\n\"x\""}]}`,
		`{"content":[{"type":"text"}]}`,
		`{"content":[{"type":"text","text":"a"}],"isError":null}`,
		"{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\"}]}", // not UTF-8
	}
	slow := []string{
		`{"isError":true}`, // no content: mcp-go's error
		`{"content":[{"Type":"text","text":"a"}],"IsError":true}`, // keys in another case
		`{"content":[{"type":"text","text":"a"}],"content":[]}`,   // a key twice
		`{"content":[{"type":"text","text":"a","text":"b"}]}`,
		`{"content":[{"type":"te\u0078t","text":"a"}]}`,
		`{"content":null}`,
		`{"content":{}}`,
		`{"content":[null]}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
		`{"content":[{"type":"text","text":"a","annotations":{"priority":1}}]}`,
		`{"content":[{"type":"text","text":"a","_meta":{"k":1}}]}`,
		`{"content":[{"type":"text","text":"a","type":"image"}]}`,
		`{"content":[{"type":"text","text":1}]}`,
		`{"content":[{"text":"a"}]}`,
		`{"content":[{"type":"text","text":"a","later":1}]}`,
		`{"content":[{"type":"text","text":"a"}],"structuredContent":{"a":1}}`,
		`{"content":[{"type":"text","text":"a"}],"_meta":{"k":"v"}}`,
		`{"content":[{"type":"text","text":"a"}],"isError":"yes"}`,
		`{"content":[{"type":"text","text":"a"}],"later":true}`,
		`{"resultType":"input_required","inputRequests":{},"requestState":"s"}`,
		`[]`,
		`{"content":[`,
		``,
	}
	check := func(raw string, wantQuick bool) {
		t.Helper()
		res, ok := quickResult(json.RawMessage(raw))
		if ok != wantQuick {
			t.Errorf("quickResult(%s) read quickly: %v, want %v", raw, ok, wantQuick)
		}
		if !ok {
			return
		}
		msg := json.RawMessage(raw)
		want, err := mcp.ParseCallToolResult(&msg)
		if err != nil || !reflect.DeepEqual(res, want) {
			t.Errorf("quickResult(%s) = %#v; mcp-go reads %#v, %v", raw, res, want, err)
		}
	}
	for _, raw := range quick {
		check(raw, true)
	}
	for _, raw := range slow {
		check(raw, false)
	}
}

// TestQuickResultLeavesTheRestToMCPGo: a result with any field of
// mcp.CallToolResult besides text content and isError set, or any content
// but plain text, as mcp-go writes it, is left to mcp-go's parser, so the
// quick path drops nothing.
func TestQuickResultLeavesTheRestToMCPGo(t *testing.T) {
	t.Parallel()
	text := mcp.TextContent{Type: mcp.ContentTypeText, Text: "a"}
	with := func(change func(*mcp.CallToolResult)) mcp.CallToolResult {
		r := mcp.CallToolResult{Content: []mcp.Content{text}, IsError: true}
		change(&r)
		return r
	}
	results := map[string]mcp.CallToolResult{
		"_meta":             with(func(r *mcp.CallToolResult) { r.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}} }),
		"resultType":        with(func(r *mcp.CallToolResult) { r.ResultType = mcp.ResultTypeComplete }),
		"structuredContent": with(func(r *mcp.CallToolResult) { r.StructuredContent = map[string]any{"n": 1} }),
		"inputRequests": with(func(r *mcp.CallToolResult) {
			r.InputRequests = mcp.InputRequests{"r": {Method: mcp.MethodListRoots, Roots: &mcp.ListRootsParams{}}}
		}),
		"requestState": with(func(r *mcp.CallToolResult) { r.RequestState = "s" }),
		"annotations": with(func(r *mcp.CallToolResult) {
			t := text
			t.Annotations = &mcp.Annotations{Priority: new(1.0)}
			r.Content = append(r.Content, t)
		}),
		"text _meta": with(func(r *mcp.CallToolResult) {
			t := text
			t.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}
			r.Content = append(r.Content, t)
		}),
		"image": with(func(r *mcp.CallToolResult) {
			r.Content = append(r.Content, mcp.NewImageContent("AA==", "image/png"))
		}),
		"audio": with(func(r *mcp.CallToolResult) {
			r.Content = append(r.Content, mcp.NewAudioContent("AA==", "audio/wav"))
		}),
		"resource_link": with(func(r *mcp.CallToolResult) {
			r.Content = append(r.Content, mcp.NewResourceLink("file:///a", "a", "", "text/plain"))
		}),
		"resource": with(func(r *mcp.CallToolResult) {
			r.Content = append(r.Content, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a", Text: "a"}))
		}),
	}
	for name, r := range results {
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := quickResult(raw); ok {
			t.Errorf("a result with %s was read quickly: %s", name, raw)
		}
		want, err := mcp.ParseCallToolResult((*json.RawMessage)(&raw))
		if err != nil || reflect.DeepEqual(want, &mcp.CallToolResult{Content: []mcp.Content{text}, IsError: true}) {
			t.Errorf("mcp-go reads the result with %s as %+v, %v: the test does not test it", name, want, err)
		}
	}
}

// TestDirectCallPaths: a legacy session over stdio or streamable HTTP
// calls tools straight through its transport; SSE keeps mcp-go's client.
// Each answers the same.
func TestDirectCallPaths(t *testing.T) {
	t.Parallel()
	legacyHTTP := httptest.NewServer(server.NewStreamableHTTPServer(mcpserver.New(mcpserver.Options{}),
		server.WithStreamableHTTPProtocolVersions(ProtocolVersion)))
	t.Cleanup(legacyHTTP.Close)
	for _, tc := range []struct {
		name   string
		entry  config.Entry
		direct bool
	}{
		{"stdio", stdioEntry("s"), true},
		{"streamable http", remoteEntry("h", legacyHTTP.URL, config.HTTP), true},
		{"sse", remoteEntry("e", serveTest(t, mcpserver.Options{}, "sse"), config.SSE), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestManager(t, testOptions())
			if err := m.Apply(setOf(tc.entry)); err != nil {
				t.Fatal(err)
			}
			name := tc.entry.Name
			waitState(t, m, name, Connected)
			c, _ := m.conn(name)
			sess, err := c.live()
			if err != nil {
				t.Fatal(err)
			}
			if sess.direct != tc.direct {
				t.Errorf("direct = %v, want %v", sess.direct, tc.direct)
			}
			res, err := m.CallTool(context.Background(), name, "echo", json.RawMessage(`{"text":"<hi> & \"you\""}`))
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != `<hi> & "you"` {
				t.Errorf("echo = %q", got)
			}
			res, err = m.CallTool(context.Background(), name, "add", json.RawMessage(`{"a":"x","b":1}`))
			if err != nil || !res.IsError {
				t.Errorf("a tool's error = %+v, %v; want a result with IsError", res, err)
			}
			if _, err := m.CallTool(context.Background(), name, "nope", nil); err == nil {
				t.Error("calling a tool the server does not have succeeded")
			}

			// Without the wait, the same answers, each once.
			res, err = callAsync(t, m, name, "echo", json.RawMessage(`{"text":"<hi>"}`))
			if err != nil || text(t, res) != "<hi>" {
				t.Errorf("echo without the wait = %+v, %v", res, err)
			}
			res, err = callAsync(t, m, name, "add", json.RawMessage(`{"a":"x","b":1}`))
			if err != nil || !res.IsError {
				t.Errorf("a tool's error without the wait = %+v, %v; want a result with IsError", res, err)
			}
			if _, err := callAsync(t, m, name, "nope", nil); err == nil || !strings.Contains(err.Error(), "calling nope on "+name) {
				t.Errorf("an unknown tool without the wait: %v", err)
			}
			if _, err := callAsync(t, m, name, "echo", json.RawMessage(`[1]`)); err == nil {
				t.Error("arguments that are not an object were sent")
			}
		})
	}
}

// TestDirectCallProgressAndCancel: over the direct path the caller gets
// the server's progress for its call, and a cancelled call says
// "cancelled" and reaches the server as notifications/cancelled.
func TestDirectCallProgressAndCancel(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(stdioEntry("p"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "p", Connected)
	c, _ := m.conn("p")
	if sess, err := c.live(); err != nil || !sess.direct {
		t.Fatalf("the stdio session does not call directly (%v)", err)
	}

	var mu sync.Mutex
	var got []mcp.ProgressNotificationParams
	caller := &Caller{Progress: func(p mcp.ProgressNotificationParams) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}}
	res, err := m.CallTool(WithCaller(context.Background(), caller), "p", "progress", json.RawMessage(`{"pause_ms":5}`))
	if err != nil || text(t, res) != "done" {
		t.Fatalf("progress = %v, %v", res, err)
	}
	mu.Lock()
	if len(got) != 3 || got[2].Message != "step 3" || got[2].Total != 3 || !strings.HasPrefix(got[0].ProgressToken.(string), "mcptray-") {
		t.Errorf("progress received: %+v", got)
	}
	mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "p", "sleep", json.RawMessage(`{"ms":60000}`))
		done <- err
	}()
	waitStderr(t, m, "p", "mcp-testserver: sleeping 60000ms")
	cancel()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, context.Canceled) || !strings.HasSuffix(err.Error(), ": cancelled") {
			t.Errorf("a cancelled call = %v; want \"…: cancelled\"", err)
		}
	case <-time.After(deadline):
		t.Fatal("the cancelled call did not return")
	}
	waitStderr(t, m, "p", "mcp-testserver: sleep cancelled")
}

// waitStderr waits until server's error output holds line.
func waitStderr(t *testing.T, m *Manager, server, line string) {
	t.Helper()
	// There is no notice for new error output: look again briefly.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for {
		info, _ := m.Report().Find(server)
		if strings.Contains(info.Stderr, line) {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("waited %s for %q in %s's error output:\n%s", deadline, line, server, info.Stderr)
		}
	}
}

// askingServer is a streamable HTTP server of revision 2025-11-25 whose
// tools/call asks for input (roots/list) as 2026-07-28's multi round-trip
// does, and answers once it has it.
type askingServer struct {
	mu    sync.Mutex
	calls []string // each tools/call's requestState
}

func (s *askingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	switch req.Method {
	case "server/discover":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, req.ID)
		return
	case "initialize":
		result = `{"protocolVersion":"` + ProtocolVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"asking","version":"1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		s.mu.Lock()
		s.calls = append(s.calls, req.Params.RequestState)
		s.mu.Unlock()
		result = `{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"s"}`
		if req.Params.RequestState == "s" {
			result = `{"content":[{"type":"text","text":"thanks"}]}`
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// TestDirectCallAskingForInput: a result that asks for input, which only
// 2026-07-28's multi round-trip has, is asked again through mcp-go's
// client, which gives the input and gets the answer.
func TestDirectCallAskingForInput(t *testing.T) {
	t.Parallel()
	srv := &askingServer{}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("asking", hs.URL, config.HTTP))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "asking", Connected)
	c, _ := m.conn("asking")
	if sess, err := c.live(); err != nil || !sess.direct {
		t.Fatalf("the session does not call directly (%v)", err)
	}
	res, err := m.CallTool(context.Background(), "asking", "ask", nil)
	if err != nil || text(t, res) != "thanks" {
		t.Fatalf("ask = %+v, %v; want thanks", res, err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !slices.Equal(srv.calls, []string{"", "", "s"}) {
		t.Errorf("tools/call came with request states %q; want the direct call, mcp-go's, and mcp-go's with the input", srv.calls)
	}
}

// callAsync makes a call with CallToolAsync and returns what done got,
// failing the test if done is called more than once.
func callAsync(t *testing.T, m *Manager, server, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	t.Helper()
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	ch := make(chan outcome, 2)
	m.CallToolAsync(context.Background(), server, tool, args, func(res *mcp.CallToolResult, err error) { ch <- outcome{res, err} })
	var o outcome
	select {
	case o = <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("CallToolAsync(%s) gave no answer", tool)
	}
	t.Cleanup(func() {
		if len(ch) > 0 {
			t.Errorf("CallToolAsync(%s) answered twice", tool)
		}
	})
	return o.res, o.err
}
