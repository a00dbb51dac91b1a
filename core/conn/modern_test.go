package conn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// modernServer is a streamable HTTP server of revision 2026-07-28 written
// by hand, so that what reaches it can be checked: it records every POST.
type modernServer struct {
	mu   sync.Mutex
	seen []modernRequest
}

type modernRequest struct {
	method, headerMethod, headerVersion, region string
	meta                                        map[string]json.RawMessage
	notifications                               map[string]bool // what a subscriptions/listen asks for
}

func (s *modernServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta          map[string]json.RawMessage `json:"_meta"`
			Notifications map[string]bool            `json:"notifications"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.seen = append(s.seen, modernRequest{
		method: req.Method, headerMethod: r.Header.Get("Mcp-Method"),
		headerVersion: r.Header.Get("Mcp-Protocol-Version"), region: r.Header.Get("Mcp-Param-Region"),
		meta: req.Params.Meta, notifications: req.Params.Notifications,
	})
	s.mu.Unlock()
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch req.Method {
	case "server/discover":
		result = map[string]any{
			"supportedVersions": []string{"2026-07-28"},
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"serverInfo":        map[string]any{"name": "modern", "version": "1"},
		}
	case "subscriptions/listen":
		result = map[string]any{}
	case "tools/list":
		result = json.RawMessage(`{"tools":[
			{"name":"deploy","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
			{"name":"broken","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Région"}}}}
		]}`)
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
	default:
		result = map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func (s *modernServer) requests() []modernRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// TestRemoteModern: a streamable HTTP server of revision 2026-07-28 is
// spoken to in it: every request says its method in Mcp-Method and the
// revision in MCP-Protocol-Version and _meta, with the client's
// capabilities and name; a tool whose header annotations are invalid is
// left out without hiding the others; a call mirrors the annotated
// argument into its header.
func TestRemoteModern(t *testing.T) {
	t.Parallel()
	ms := &modernServer{}
	srv := httptest.NewServer(ms)
	t.Cleanup(srv.Close)
	m := newTestManager(t, testOptions())
	if err := m.Apply(setOf(remoteEntry("modern", srv.URL+"/mcp", config.HTTP))); err != nil {
		t.Fatal(err)
	}
	info := waitState(t, m, "modern", Connected)
	var names []string
	for _, tl := range info.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"deploy"}) {
		t.Errorf("tools = %q, want only deploy (broken's header annotation is not ASCII)", names)
	}
	if _, err := m.CallTool(context.Background(), "modern", "deploy", json.RawMessage(`{"region":"eu-west-1"}`)); err != nil {
		t.Fatalf("CallTool: %v", err)
	}

	var methods []string
	for _, r := range ms.requests() {
		methods = append(methods, r.method)
		if r.method == "initialize" {
			t.Errorf("a 2026-07-28 server was sent initialize")
		}
		if r.headerMethod != r.method {
			t.Errorf("%s: Mcp-Method = %q", r.method, r.headerMethod)
		}
		if r.headerVersion != "2026-07-28" {
			t.Errorf("%s: MCP-Protocol-Version = %q", r.method, r.headerVersion)
		}
		for _, k := range []string{"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo"} {
			if r.meta[k] == nil {
				t.Errorf("%s: _meta has no %s", r.method, k)
			}
		}
		if r.method == "tools/call" && r.region != "eu-west-1" {
			t.Errorf("tools/call: Mcp-Param-Region = %q, want eu-west-1", r.region)
		}
		// It hears of changed tools and prompts.
		if r.method == "subscriptions/listen" && (!r.notifications["toolsListChanged"] || !r.notifications["promptsListChanged"]) {
			t.Errorf("subscriptions/listen asks for %v, want changed tools and prompts", r.notifications)
		}
	}
	for _, want := range []string{"server/discover", "tools/list", "tools/call"} {
		if !slices.Contains(methods, want) {
			t.Errorf("the server saw %q, no %s", methods, want)
		}
	}
}
