package gateway

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/service"
)

// TestSessionsRecordApps: an app on the HTTP face is recorded with its
// clientInfo, the face, the app it is and the tools it was given.
func TestSessionsRecordApps(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: "Visual Studio Code", Version: "1.107.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.gw.Sessions()
	if len(got) != 1 {
		t.Fatalf("sessions: %+v", got)
	}
	s := got[0]
	if s.Client != "Visual Studio Code" || s.ClientVersion != "1.107.0" || s.App != "VS Code" || s.Face != FaceHTTP ||
		!s.Listed || s.Tools != len(list.Tools) || s.ToolLimit != 128 || s.ToolWarning != "" || s.Ended || s.Started.IsZero() {
		t.Errorf("the session: %+v (the app was given %d tools)", s, len(list.Tools))
	}
	// (mcp-go's client sends its closing DELETE without the token, so the
	// HTTP face refuses it; core/control's TestAppArrives sees a session
	// end through the control endpoint.)
	c.Close()
}

// TestSessionsRecordTheNamedApp: a session that came with the name
// mcptray gave its app (its own token, mcptray stdio --app) is recorded as
// that app's, whatever its clientInfo claims: the writer calling itself
// cursor-vscode is not Cursor, nor held to Cursor's tool limit, and a
// session started as Cursor's is Cursor's.
func TestSessionsRecordTheNamedApp(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	r.httpAs(AppToken(r.token, "writer"), "cursor-vscode")
	got := r.gw.Sessions()
	if len(got) != 1 || got[0].Named != "writer" || got[0].App != "" || got[0].ToolLimit != 0 || got[0].Client != "cursor-vscode" {
		t.Fatalf("the writer's session, calling itself Cursor: %+v", got)
	}
	r.streamAs("cursor", "some-probe")
	for _, s := range r.gw.Sessions() {
		if s.Client == "some-probe" && (s.Named != "cursor" || s.App != "Cursor" || s.ToolLimit != 40) {
			t.Errorf("a session started as Cursor's: %+v", s)
		}
	}
}

// TestSessionsRecordModernApps: an app on the sessionless revision
// (2026-07-28) is recorded by the clientInfo in its requests' _meta, once
// however many requests it sends; it is in use while it listens or was
// seen lately, and ended once idle.
func TestSessionsRecordModernApps(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	var mu sync.Mutex
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	r.gw.apps.setNow(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	notices, _ := r.svc.Subscribe(ctx)
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20260728
	req.Params.ClientInfo = mcp.Implementation{Name: "cursor-vscode", Version: "2.3.0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != mcp.ProtocolVersion20260728 || c.GetSessionId() != "" {
		t.Fatalf("the client speaks %s with session %q, not the sessionless revision", res.ProtocolVersion, c.GetSessionId())
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := callText(t, c, "mcp__a__echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("mcp__a__echo = %q", got)
	}
	got := r.gw.Sessions()
	if len(got) != 1 {
		t.Fatalf("one app, three requests: %+v", got)
	}
	s := got[0]
	if s.Client != "cursor-vscode" || s.ClientVersion != "2.3.0" || s.App != "Cursor" || s.Face != FaceHTTP ||
		!s.Listed || s.Tools != len(list.Tools) || s.ToolLimit != 40 || s.Ended || !s.Started.Equal(now) {
		t.Errorf("the sessionless app: %+v (it was given %d tools)", s, len(list.Tools))
	}
	select {
	case <-notices:
	case <-ctx.Done():
		t.Fatal("no change notice when a sessionless app arrived")
	}
	apps, err := r.svc.Apps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if a.Name == "Cursor" && a.State != service.AppInUse {
			t.Errorf("the service's Cursor: %+v", a)
		}
	}

	advance(modernIdle)
	if got := r.gw.Sessions(); len(got) != 1 || !got[0].Ended {
		t.Errorf("idle for %s: %+v", modernIdle, got)
	}

	// A listening stream keeps it in use however long it is quiet.
	stop, err := c.ListenAsync(ctx, mcp.SubscriptionFilter{ToolsListChanged: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	listening := func() bool {
		r.gw.apps.mu.Lock()
		defer r.gw.apps.mu.Unlock()
		for _, m := range r.gw.apps.modern {
			return m.listening > 0
		}
		return false
	}
	for !listening() {
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatal("the app's listening stream was not seen")
		}
	}
	advance(2 * modernIdle)
	if got := r.gw.Sessions(); len(got) != 1 || got[0].Ended || !got[0].Started.Equal(now.Add(-2*modernIdle)) {
		t.Errorf("listening, back after idling: %+v", got)
	}
	stop()
	for listening() {
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatal("the end of the app's listening stream was not seen")
		}
	}
	if got := r.gw.Sessions(); len(got) != 1 || got[0].Ended {
		t.Errorf("just stopped listening: %+v", got)
	}
	advance(modernIdle)
	if got := r.gw.Sessions(); len(got) != 1 || !got[0].Ended {
		t.Errorf("idle after listening: %+v", got)
	}
}

// TestModernBounded: sessionless apps that do not name themselves are not
// recorded, and the record keeps the apps seen last.
func TestModernBounded(t *testing.T) {
	t.Parallel()
	a := newAppSessions()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	a.now = func() time.Time { return now }
	modern := func(name string) context.Context {
		info := &server.RequestProtocolInfo{Modern: true, ProtocolVersion: mcp.ProtocolVersion20260728}
		if name != "" {
			info.ClientInfo = &mcp.Implementation{Name: name}
		}
		return server.WithRequestProtocolInfo(context.Background(), info)
	}
	if a.seenModern(modern("")) || len(a.list()) != 0 {
		t.Errorf("an app that names no client was recorded: %+v", a.list())
	}
	for i := range maxModern + 4 {
		now = now.Add(time.Second)
		if !a.seenModern(modern(fmt.Sprintf("client-%d", i))) {
			t.Errorf("client-%d did not arrive", i)
		}
	}
	got := a.list()
	if len(got) != maxModern || got[len(got)-1].Client != "client-4" || got[0].Client != fmt.Sprintf("client-%d", maxModern+3) {
		t.Errorf("%d apps recorded, from %s to %s", len(got), got[0].Client, got[len(got)-1].Client)
	}
}
