package control

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestKilledAppEndsItsSession: an app's mcptray stdio that dies without
// ending its session (killed with its app) drops its listening stream; the
// gateway then ends the session, and the app no longer shows as in use.
func TestKilledAppEndsItsSession(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	if err := os.MkdirAll(filepath.Join(r.paths.Home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	hc := r.cl.HTTPClient()
	post := func(session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, MCPURL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	session := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cursor-vscode","version":"1.7.0"}}}`).Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("initialize gave no session")
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// The bridge's listening stream, open until the bridge dies.
	streamCtx, kill := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, MCPURL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("opening the listening stream: %v %v", resp, err)
	}
	go func() { // read until the stream ends
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		resp.Body.Close()
	}()
	if a := r.app(t, "Cursor"); a.State != service.AppInUse {
		t.Fatalf("with its session open: %+v", a)
	}

	notices, err := r.cl.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kill()
	for {
		a := r.app(t, "Cursor")
		if len(a.Sessions) == 1 && a.Sessions[0].Ended && a.State != service.AppInUse {
			break
		}
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatalf("the session of a killed mcptray stdio did not end: %+v", a)
		}
	}
	// The session is gone for good: a request in it is refused.
	if got := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode; got != http.StatusNotFound {
		t.Errorf("a request in the ended session: %d, want 404", got)
	}
}
