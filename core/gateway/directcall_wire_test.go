package gateway

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestReadCallAsEncodingJSON: whatever readCall reads, it reads as
// encoding/json reads it, as far as a direct call looks; the rest is
// left to encoding/json.
func TestReadCallAsEncodingJSON(t *testing.T) {
	t.Parallel()
	quick := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi"}}}`,
		` { "params" : { "arguments" : { "a" : [ 1 , "}" ] } , "name" : "x\u00e9" } , "method":"tools/call", "id" : "s-1" , "jsonrpc" : "2.0" , "later": {"k":[]} } `,
		`{"jsonrpc":"2.0","id":-1.5,"method":"tools/call","params":{"name":"t"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t","arguments":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{}}`,
		`{"id":1,"method":"tools/call","params":{"name":"t","later":1}}`,
	}
	slow := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","inputResponses":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"s"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","Task":{}}}`,
		`{"jsonrpc":"2.0","id":1,"ID":2,"method":"tools/call","params":{"name":"t"}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","name":"u"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"t"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}`,
		`[]`,
	}
	for _, body := range quick {
		got, ok := readCall([]byte(body))
		if !ok {
			t.Errorf("readCall(%s) did not read it", body)
			continue
		}
		var want callRequest
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		if want.JSONRPC != mcp.JSONRPC_VERSION || want.Method != string(mcp.MethodToolsCall) {
			if got.JSONRPC != mcp.JSONRPC_VERSION || got.Method != string(mcp.MethodToolsCall) {
				continue // not a call either way
			}
			t.Errorf("readCall(%s) = %+v; encoding/json reads %+v", body, got, want)
			continue
		}
		if want.ID == nil && got.ID == nil || string(want.ID) == "null" && got.ID == nil {
			got.ID, want.ID = nil, nil
		}
		if want.Params != nil && string(want.Params.Arguments) == "null" && string(got.Params.Arguments) == "null" {
			got.Params.Arguments, want.Params.Arguments = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("readCall(%s) = %+v %+v; encoding/json reads %+v %+v", body, got, got.Params, want, want.Params)
		}
	}
	for _, body := range slow {
		if _, ok := readCall([]byte(body)); ok {
			t.Errorf("readCall(%s) read it", body)
		}
	}
}

// TestTextContentAsEncodingJSON: plain text content is encoded as
// encoding/json encodes it; anything else is left to it.
func TestTextContentAsEncodingJSON(t *testing.T) {
	t.Parallel()
	text := func(s string) mcp.TextContent { return mcp.TextContent{Type: mcp.ContentTypeText, Text: s} }
	for _, content := range [][]mcp.Content{
		nil,
		{text("hi")},
		{text(`<b>"x" & y</b>` + "\n\t\x01\u2028 \xff é 🙂"), text("")},
	} {
		want, _ := json.Marshal(content)
		if content == nil {
			want = []byte("[]")
		}
		if got, ok := textContent(content); !ok || string(got) != string(want) {
			t.Errorf("textContent(%v) = %s, %v; encoding/json: %s", content, got, ok, want)
		}
	}
	annotated := text("a")
	annotated.Annotations = &mcp.Annotations{Priority: new(1.0)}
	for _, content := range [][]mcp.Content{
		{annotated},
		{text("a"), &mcp.TextContent{Type: mcp.ContentTypeText, Text: "b"}},
		{mcp.NewImageContent("AA==", "image/png")},
		{mcp.TextContent{Type: "", Text: "a"}},
	} {
		if _, ok := textContent(content); ok {
			t.Errorf("textContent(%v) encoded it", content)
		}
	}
}
