package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestListFromCache: the encoded answer to tools/list is what mcp-go itself
// answers, byte for byte once compacted, with the request's id; a request
// with a cursor, or in a session the gateway did not issue, is still mcp-go's.
func TestListFromCache(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	session := r.initialize(t, http.StatusOK)

	got := sseData(r.post(t, session, `{"jsonrpc":"2.0","id":"list-7","method":"tools/list"}`, http.StatusOK))
	direct, err := json.Marshal(r.gw.MCPServer().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":"list-7","method":"tools/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := json.Compact(&a, got); err != nil {
		t.Fatalf("the answer is not JSON: %v\n%s", err, got)
	}
	if err := json.Compact(&b, direct); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("tools/list through the face differs from mcp-go's own answer:\n%s\n%s", a.String(), b.String())
	}
	if !strings.Contains(a.String(), `"id":"list-7"`) || !strings.Contains(a.String(), `"mcp__a__echo"`) {
		t.Errorf("tools/list answered %s", a.String())
	}
	encoded := r.gw.listJSON.Load()
	if encoded == nil {
		t.Fatal("the gateway keeps no encoded list, so mcp-go answered")
	}
	// The app's record says what it was given, as mcp-go's hook would.
	r.gw.apps.mu.Lock()
	var rec service.AppSession
	p, ok := r.gw.apps.byID[session]
	if ok {
		rec = *p
	}
	r.gw.apps.mu.Unlock()
	if !ok || !rec.Listed || rec.Tools != encoded.tools || rec.Tools == 0 {
		t.Errorf("the session's record after tools/list: %+v (found %v), want %d tools", rec, ok, encoded.tools)
	}

	// A cursor goes to mcp-go, which pages from it (past the end here).
	paged := sseData(r.post(t, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"bm90IGEgY3Vyc29y"}}`, http.StatusOK))
	if strings.Contains(string(paged), "mcp__a__echo") {
		t.Errorf("a request with a cursor was answered from the encoded list: %s", paged)
	}
	// An unknown session is mcp-go's 404, as before.
	r.post(t, "mcptray-00000000000000000000000000000000", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, http.StatusNotFound)
}
