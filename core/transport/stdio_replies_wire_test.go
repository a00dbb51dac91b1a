package transport

import (
	"encoding/json"
	"reflect"
	"testing"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestReadReplyAsEncodingJSON: whatever readReply reads, it reads as
// encoding/json does, with the same waiter's key; the rest is left to
// encoding/json.
func TestReadReplyAsEncodingJSON(t *testing.T) {
	t.Parallel()
	quick := []string{
		`{"jsonrpc":"2.0","id":"mcptray-1","result":{"content":[{"type":"text","text":"hi"}]}}` + "\n",
		` { "result" : { "a" : [ 1 , "}" ] } , "id" : "x" } `,
		`{"jsonrpc":"2.0","id":"mcptray-2","error":{"code":-32602,"message":"no such tool","data":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":"mcptray-3","result":{},"later":[1,2]}`,
		`{"jsonrpc":"2.0","id":"mcptray-4","result":{},"error":null}`,
	}
	slow := []string{
		`{"jsonrpc":"2.0","id":"a\u0062","result":null}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"result\":null}",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":"s","method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":"a","ID":"b","result":{}}`,
		`{"jsonrpc":"2.0","id":"a","id":"b","result":{}}`,
		`{"jsonrpc":"2.0","id":"a","Result":{"x":1}}`,
		`{"jsonrpc":"1.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":"x"}}`,
		`[]`,
		``,
	}
	for _, line := range quick {
		got, id, ok := readReply([]byte(line))
		if !ok {
			t.Errorf("readReply(%s) did not read it", line)
			continue
		}
		var want reply
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		rid := mcp.NewRequestId(string(id))
		got.ID = &rid
		if !reflect.DeepEqual(got, want) || "string:"+string(id) != want.ID.String() {
			t.Errorf("readReply(%s) = %+v (id %s); encoding/json reads %+v (key %s)", line, got, id, want, want.ID.String())
		}
	}
	for _, line := range slow {
		if _, _, ok := readReply([]byte(line)); ok {
			t.Errorf("readReply(%s) read it", line)
		}
	}
}

// TestEncodeRequestAsEncodingJSON: a request is written as encoding/json
// writes it, one line.
func TestEncodeRequestAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, req := range []mcptransport.JSONRPCRequest{
		{JSONRPC: "2.0", ID: mcp.NewRequestId("mcptray-1"), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"text":"<hi>"}}`)},
		{JSONRPC: "2.0", ID: mcp.NewRequestId("mcptray-\"2\""), Method: "tools/call", Params: json.RawMessage("{\"name\":\"echo\",\n \"arguments\": {\"a b\" : [ 1,\t2 ] } }")},
		{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(3)), Method: "tools/list", Params: json.RawMessage(`{}`)},
		{JSONRPC: "2.0", ID: mcp.NewRequestId("4"), Method: "ping"},
		{JSONRPC: "2.0", ID: mcp.NewRequestId("5"), Method: "tools/call", Params: map[string]any{"name": "a"}},
		{JSONRPC: "2.0", ID: mcp.NewRequestId("6"), Method: "tools/call", Params: json.RawMessage("{\"a\":\"\u2028 \u2029 \u2027 é\"}")},
	} {
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeRequest(req)
		if err != nil || string(got) != string(want)+"\n" {
			t.Errorf("encodeRequest(%+v) = %s, %v; encoding/json: %s", req, got, err, want)
		}
	}
}
