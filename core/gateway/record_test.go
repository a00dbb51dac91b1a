package gateway

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
)

// plantedSecret is a server's environment value that an app also passes
// as an argument: it must never reach the record's files.
const plantedSecret = "planted-9c1e7d-value"

// recordRig is a rig whose gateway records into a real activity record,
// with the service's secrets masked, asking the person through answers.
type recordRig struct {
	*rig
	g       *Gateway
	face    *Face
	log     *activity.Log
	dir     string
	answers chan bool
}

func newRecordRig(t *testing.T, keep bool) *recordRig {
	t.Helper()
	r := newRigWith(t, map[string]any{
		"a": map[string]any{"command": testServerBin, "args": []string{"-name", "a"}, "env": map[string]string{"API_KEY": plantedSecret}},
	}, map[string]any{"permissions": map[string]string{
		"mcp__a__pid": "block", "mcp__a__add": "ask", "mcp__a__crash": "allow",
	}})
	answers := make(chan bool, 1)
	rr := startRecording(t, r, Options{AskTimeout: 5 * time.Second, Ask: func(ctx context.Context, q Question) (bool, error) {
		select {
		case ok := <-answers:
			return ok, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}}, activity.Settings{KeepArguments: keep})
	rr.answers = answers
	return rr
}

// startRecording starts a gateway over r's service, with opts, that
// records into an activity record of its own (with settings), with its
// HTTP face; all of it stops when the test ends.
func startRecording(t *testing.T, r *rig, opts Options, settings activity.Settings) *recordRig {
	t.Helper()
	rr := &recordRig{rig: r, dir: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	rr.log, err = activity.Open(ctx, activity.Options{Path: filepath.Join(rr.dir, "activity.db"), Settings: settings, Secrets: r.svc.ActivitySecrets})
	if err != nil {
		t.Fatal(err)
	}
	opts.Recorder, opts.Home = rr.log, r.paths.Home
	rr.g = New(r.svc, opts)
	ran := make(chan error, 1)
	go func() { ran <- rr.g.Run(ctx) }()
	rr.face, err = rr.g.OpenHTTP(ctx, HTTPOptions{Paths: r.paths, Token: r.svc.GatewayToken, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- rr.face.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-served
		<-ran
		rr.log.Close()
	})
	if err := rr.g.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return rr
}

// httpClient connects an app called name to the recording gateway's HTTP
// face.
func (rr *recordRig) httpClient(name string) *client.Client {
	t := rr.t
	c, err := client.NewStreamableHttpClient(rr.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + rr.token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rr.initialize(c, name)
	return c
}

// stdioClient connects an app called name to the recording gateway's
// stdio face, over real pipes as mcptray stdio hands them over.
func (rr *recordRig) stdioClient(name string) *client.Client {
	c := rr.stdioConn()
	rr.initialize(c, name)
	return c
}

// stdioConn is an app's connection to the stdio face, not yet initialized.
func (rr *recordRig) stdioConn() *client.Client {
	t := rr.t
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		rr.g.ServeStream(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close(); inR.Close() })
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func (rr *recordRig) initialize(c *client.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		rr.t.Fatalf("initialize: %v", err)
	}
}

// modernClient connects an app called name to the recording gateway's
// HTTP face on the sessionless revision (2026-07-28): no session, each
// request naming its client in its _meta.
func (rr *recordRig) modernClient(name string) *client.Client {
	t := rr.t
	c, err := client.NewStreamableHttpClient(rr.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + rr.token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rr.initializeModern(c, name)
	if c.GetSessionId() != "" {
		t.Fatalf("the sessionless client has session %q", c.GetSessionId())
	}
	return c
}

// initializeModern has c speak the sessionless revision, as name.
func (rr *recordRig) initializeModern(c *client.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20260728
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		rr.t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != mcp.ProtocolVersion20260728 {
		rr.t.Fatalf("the client speaks %s, not the sessionless revision", res.ProtocolVersion)
	}
}

// rows are the record's calls, oldest first, once every call made was
// written.
func (rr *recordRig) rows() []activity.Entry {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := rr.log.Flush(ctx); err != nil {
		rr.t.Fatal(err)
	}
	rows, err := rr.log.Query(ctx, activity.Filter{Kind: activity.KindCall, Oldest: true})
	if err != nil {
		rr.t.Fatal(err)
	}
	return rows
}

// TestRecordBothFaces: calls through the HTTP face and the stdio face, of
// a real server through the real gateway, appear in the record with their
// app and face, server, tool, outcome and the permission's decision: an
// answered call, one the tool failed, one blocked, one asked and allowed,
// one asked and declined, one whose server was gone; and the secret in the
// server's environment that the app passed as an argument is in none of
// the record's files, with Keep arguments off and on.
func TestRecordBothFaces(t *testing.T) {
	t.Parallel()
	for _, keep := range []bool{false, true} {
		rr := newRecordRig(t, keep)
		claude := rr.httpClient("claude-code")
		cursor := rr.stdioClient("cursor-vscode")

		callText(t, claude, "mcp__a__echo", map[string]any{"text": "use " + plantedSecret})
		callText(t, claude, "mcp__a__echo", map[string]any{}) // the tool fails: no text
		callText(t, claude, "mcp__a__pid", nil)               // blocked
		rr.answers <- true
		callText(t, cursor, "mcp__a__add", map[string]any{"a": 1, "b": 2, "token": plantedSecret})
		rr.answers <- false
		callText(t, cursor, "mcp__a__add", map[string]any{"a": 1, "b": 2})
		callText(t, cursor, "mcp__a__env", map[string]any{"name": "API_KEY"}) // the secret is in the result only
		callText(t, cursor, "mcp__a__crash", nil)

		type want struct {
			app, face, tool string
			outcome         activity.Outcome
			decision        activity.Decision
		}
		wants := []want{
			{"Claude Code", FaceHTTP, "echo", activity.Answered, activity.Allowed},
			{"Claude Code", FaceHTTP, "echo", activity.ToolFailed, activity.Allowed},
			{"Claude Code", FaceHTTP, "pid", activity.Refused, activity.Blocked},
			{"Cursor", FaceStdio, "add", activity.Answered, activity.AskedAllowed},
			{"Cursor", FaceStdio, "add", activity.Refused, activity.AskedDeclined},
			{"Cursor", FaceStdio, "env", activity.Answered, activity.Allowed},
			{"Cursor", FaceStdio, "crash", activity.Unavailable, activity.Allowed},
		}
		rows := rr.rows()
		if len(rows) != len(wants) {
			t.Fatalf("keep=%v: %d rows, want %d: %+v", keep, len(rows), len(wants), rows)
		}
		for i, w := range wants {
			e := rows[i]
			got := want{e.App, e.Face, e.Tool, e.Outcome, e.Decision}
			if got != w || e.Server != "a" {
				t.Errorf("keep=%v: row %d is %+v (server %q), want %+v", keep, i+1, got, e.Server, w)
			}
		}
		if rows[0].ResultSize == 0 || rows[0].Duration <= 0 {
			t.Errorf("row 1: result size %d, duration %s", rows[0].ResultSize, rows[0].Duration)
		}
		if rows[2].Reason == "" || rows[6].Reason == "" {
			t.Errorf("reasons: %q, %q", rows[2].Reason, rows[6].Reason)
		}
		if keep != rows[0].ArgumentsKept || (keep && rows[0].Arguments != `{"text":"use [masked]"}`) || (!keep && rows[0].Arguments != `{"text":"string(24)"}`) {
			t.Errorf("keep=%v: arguments %s", keep, rows[0].Arguments)
		}
		rr.log.Close()
		grepDir(t, rr.dir, plantedSecret)
	}
}

// grepDir fails when a file in dir (the database, its -wal, its -shm)
// holds s.
func grepDir(t *testing.T, dir, s string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no record in %s: %v", dir, err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds the secret", e.Name())
		}
	}
}

// TestRecordSearchMode: a call through search mode's call_tool is
// recorded as a call of the tool it calls.
func TestRecordSearchMode(t *testing.T) {
	t.Parallel()
	rr := newRecordRig(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := rr.svc.SetSearch(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := rr.g.Sync(ctx); err != nil || rr.g.MCPServer().GetTool(CallTool) == nil {
		t.Fatalf("search mode is not on: %v", err)
	}
	c := rr.stdioClient("claude-code")
	if got, isErr := callText(t, c, CallTool, map[string]any{"name": "mcp__a__echo", "arguments": map[string]any{"text": "hi"}}); got != "hi" || isErr {
		t.Fatalf("call_tool: %q %v", got, isErr)
	}
	callText(t, c, CallTool, map[string]any{"name": "mcp__a__pid"})
	rows := rr.rows()
	if len(rows) != 2 || rows[0].Tool != "echo" || rows[0].Outcome != activity.Answered || rows[0].App != "Claude Code" ||
		rows[0].Arguments != `{"text":"string(2)"}` || rows[1].Tool != "pid" || rows[1].Decision != activity.Blocked {
		t.Errorf("rows: %+v", rows)
	}
}

// TestRecordNoWindow: a call that needs the person's OK with no window to
// ask in is recorded as refused for that, not as asked.
func TestRecordNoWindow(t *testing.T) {
	t.Parallel()
	rr := newRecordRig(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, ask := range []AskFunc{nil, func(context.Context, Question) (bool, error) { return false, ErrNoWindow }} {
		g := New(rr.svc, Options{Recorder: rr.log, Ask: ask})
		if err := g.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "mcp__a__add", map[string]any{"a": 1, "b": 2}
		if res, err := g.MCPServer().GetTool("mcp__a__add").Handler(ctx, req); err != nil || !res.IsError {
			t.Fatalf("add with no window: %+v %v", res, err)
		}
	}
	rows := rr.rows()
	if len(rows) != 2 {
		t.Fatalf("rows: %+v", rows)
	}
	for _, e := range rows {
		if e.Outcome != activity.Refused || e.Decision != activity.NoWindow || !strings.Contains(e.Reason, "no mcptray window to ask in") {
			t.Errorf("row %d: %s, %s, %q", e.ID, e.Outcome, e.Decision, e.Reason)
		}
	}
}

// TestRecordSessionless: calls of an app on the sessionless revision,
// which has no session and names itself in each request, are recorded
// with the app as people know it (claude-code is Claude Code) and its
// face: through the HTTP face an answered call, a blocked one and one
// asked and allowed; an app mcptray does not know, by the name it gives;
// one through mcptray stdio, as stdio.
func TestRecordSessionless(t *testing.T) {
	t.Parallel()
	rr := newRecordRig(t, false)
	claude := rr.modernClient("claude-code")
	script := rr.modernClient("my-script")
	cursor := rr.stdioConn()
	rr.initializeModern(cursor, "cursor-vscode")

	if got, isErr := callText(t, claude, "mcp__a__echo", map[string]any{"text": "hi"}); got != "hi" || isErr {
		t.Fatalf("echo: %q %v", got, isErr)
	}
	callText(t, claude, "mcp__a__pid", nil) // blocked
	rr.answers <- true
	if got, isErr := callText(t, claude, "mcp__a__add", map[string]any{"a": 1, "b": 2}); isErr {
		t.Fatalf("add, allowed: %q", got)
	}
	callText(t, script, "mcp__a__echo", map[string]any{"text": "hi"})
	callText(t, cursor, "mcp__a__echo", map[string]any{"text": "hi"})

	type want struct {
		app, face, tool string
		outcome         activity.Outcome
		decision        activity.Decision
	}
	wants := []want{
		{"Claude Code", FaceHTTP, "echo", activity.Answered, activity.Allowed},
		{"Claude Code", FaceHTTP, "pid", activity.Refused, activity.Blocked},
		{"Claude Code", FaceHTTP, "add", activity.Answered, activity.AskedAllowed},
		{"my-script", FaceHTTP, "echo", activity.Answered, activity.Allowed},
		{"Cursor", FaceStdio, "echo", activity.Answered, activity.Allowed},
	}
	rows := rr.rows()
	if len(rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(wants), rows)
	}
	for i, w := range wants {
		e := rows[i]
		if got := (want{e.App, e.Face, e.Tool, e.Outcome, e.Decision}); got != w || e.Server != "a" {
			t.Errorf("row %d is %+v (server %q), want %+v", i+1, got, e.Server, w)
		}
	}
}

// TestRecordHiddenInResult: a tool whose result hides text (bidi
// controls, invisible characters) reaches the app without it, through
// either face, and the call's record says the server tried.
func TestRecordHiddenInResult(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, map[string]any{
		"b": map[string]any{"command": testServerBin, "args": []string{"-name", "b", "-bidi"}},
	}, map[string]any{"permissions": map[string]string{"mcp__b__bidi__exe_txt____": "allow"}})
	rr := startRecording(t, r, Options{}, activity.Settings{})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, c := range []*client.Client{rr.httpClient("claude-code"), rr.stdioClient("cursor-vscode")} {
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var bidi string
		for _, tool := range list.Tools {
			if strings.HasPrefix(tool.Name, "mcp__b__bidi") {
				bidi = tool.Name
			}
		}
		if bidi == "" {
			t.Fatalf("no bidi tool among %d", len(list.Tools))
		}
		got, isErr := callText(t, c, bidi, nil)
		if isErr || strings.ContainsAny(got, "\u202E\u2066\u2069\u200B\uFEFF") || !strings.Contains(got, "report") {
			t.Errorf("the app read %q (an error: %v)", got, isErr)
		}
	}
	rows := rr.rows()
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(rows), rows)
	}
	for _, e := range rows {
		if e.Outcome != activity.Answered || e.Reason != HiddenInResult {
			t.Errorf("row %d (%s): %s, %q; want answered, %q", e.ID, e.Face, e.Outcome, e.Reason, HiddenInResult)
		}
	}
}
