package gateway

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestDirectCall: a plain tools/call of a live session is answered by the
// gateway itself with the message mcp-go's own dispatch answers, byte for
// byte; everything else is left to mcp-go.
func TestDirectCall(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{"permissions": map[string]string{"mcp__a__pid": "block"}})
	r.waitTool("mcp__a__echo")

	s := newStreamSession(io.Discard)
	s.Initialize()
	s.SetProtocolVersion(legacy)
	ctx := r.gw.mcp.WithContext(context.Background(), s)

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"call-2","method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"<tag> & \u00e9"},"_meta":{"progressToken":"p1"}}}`,
		`{ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "mcp__a__echo", "arguments": { "text": "spaces" } } }`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mcp__a__env","arguments":{"name":"MCPTRAY_SURELY_UNSET"}}}`, // the tool fails
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mcp__a__pid"}}`,                                             // blocked
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":null}}`,                           // the server refuses
	} {
		got, _, ok := waitDirect(r.gw, ctx, []byte(body))
		if !ok {
			t.Errorf("not called directly: %s", body)
			continue
		}
		want, err := json.Marshal(r.gw.mcp.HandleMessage(ctx, json.RawMessage(body)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s\nanswered directly: %s\nmcp-go answers:    %s", body, got, want)
		}
	}

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__a__nosuchtool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"},"task":{"ttl":1000}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"1.0","id":10,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"name":"tools/call"}}`,
		`{"jsonrpc":"2.0","id":12,"method":"tools/call"}`,
		`not JSON "tools/call"`,
	} {
		if got, _, ok := waitDirect(r.gw, ctx, []byte(body)); ok {
			t.Errorf("%s\nanswered directly, not by mcp-go: %s", body, got)
		}
	}

	// A session that has not finished initialize is mcp-go's too.
	fresh := newStreamSession(io.Discard)
	fresh.SetProtocolVersion(legacy)
	body := `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`
	if _, _, ok := waitDirect(r.gw, r.gw.mcp.WithContext(context.Background(), fresh), []byte(body)); ok {
		t.Error("a call of a session without initialize was answered directly")
	}
}

// waitDirect makes a direct call and waits for its answer; ok is false
// when the call is mcp-go's.
func waitDirect(g *Gateway, ctx context.Context, body []byte) (out []byte, isResult, ok bool) {
	type answer struct {
		out      []byte
		isResult bool
	}
	ch := make(chan answer, 2)
	if !g.directCall(ctx, body, func(out []byte, isResult bool) { ch <- answer{out, isResult} }) {
		return nil, false, false
	}
	a := <-ch
	if len(ch) > 0 {
		panic("a direct call answered twice")
	}
	return a.out, a.isResult, true
}

// TestEncodeResult: the short way encodes every result to mcp-go's bytes.
func TestEncodeResult(t *testing.T) {
	text := func(s string) mcp.Content { return mcp.TextContent{Type: mcp.ContentTypeText, Text: s} }
	results := map[string]*mcp.CallToolResult{
		"text":                 {Content: []mcp.Content{text("hi")}},
		"two texts, escaped":   {Content: []mcp.Content{text(`<a href="x">&</a>` + "\n\u2028"), text("")}},
		"an error":             {Content: []mcp.Content{text("no")}, IsError: true},
		"no content":           {},
		"empty content":        {Content: []mcp.Content{}},
		"an image":             {Content: []mcp.Content{mcp.ImageContent{Type: mcp.ContentTypeImage, Data: "AAAA", MIMEType: "image/png"}}},
		"annotated":            {Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: "a", Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: ptr(0.5)}}}}},
		"structured":           {Content: []mcp.Content{text("a")}, StructuredContent: map[string]any{"b": 1}},
		"raw structured":       {Content: []mcp.Content{text("a")}, RawStructuredContent: json.RawMessage(`{"b":1}`)},
		"meta":                 {Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}}, Content: []mcp.Content{text("a")}},
		"resultType":           {Result: mcp.Result{ResultType: mcp.ResultTypeComplete}, Content: []mcp.Content{text("a")}},
		"input required":       {MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: "s"}},
		"an error, no content": {IsError: true},
	}
	for name, res := range results {
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := encodeResult(res)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %s, %v\nwant %s", name, got, err, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
