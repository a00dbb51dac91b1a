package gateway

import (
	"context"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sets"
)

// streamAs connects an mcp-go client on a new stdio-face session of the
// app mcptray knows as app ("" for none), which calls itself clientInfo.
func (r *rig) streamAs(app, clientInfo string, opts ...client.ClientOption) *client.Client {
	r.t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		r.t.Fatal(err)
	}
	ctx := context.Background()
	if app != "" {
		ctx = sets.WithApp(ctx, app)
	}
	go func() {
		_ = r.gw.ServeStream(ctx, inR, outW)
		outW.Close()
	}()
	r.t.Cleanup(func() { inW.Close(); outR.Close(); inR.Close() })
	c := client.NewClient(transport.NewIO(outR, inW, nil), opts...)
	if err := c.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.initClient(c, clientInfo)
	return c
}

// httpAs connects an mcp-go client to the HTTP face with token, calling
// itself clientInfo.
func (r *rig) httpAs(token, clientInfo string, opts ...client.ClientOption) *client.Client {
	r.t.Helper()
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
		transport.WithContinuousListening())
	if err != nil {
		r.t.Fatal(err)
	}
	for _, o := range opts {
		o(c)
	}
	if err := c.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	r.initClient(c, clientInfo)
	return c
}

func (r *rig) initClient(c *client.Client, clientInfo string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: clientInfo, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		r.t.Fatalf("initialize as %s: %v", clientInfo, err)
	}
}

// servedServers are the servers whose tools c lists.
func servedServers(t testing.TB, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var servers []string
	for _, tl := range list.Tools {
		if rest, ok := strings.CutPrefix(tl.Name, "mcp__"); ok {
			sv, _, _ := strings.Cut(rest, "__")
			servers = append(servers, sv)
		}
	}
	slices.Sort(servers)
	return slices.Compact(servers)
}

// twoSets are the choices of the tests: Writing holds a, Coding holds b
// and is the tray's set, the writer gets Writing and the coder follows
// the tray.
func twoSets(t *testing.T) sets.Choices {
	t.Helper()
	var c sets.Choices
	for _, err := range []error{
		c.Put(sets.Set{Name: "Writing", Servers: []string{"a"}}, []string{"a", "b"}),
		c.Put(sets.Set{Name: "Coding", Servers: []string{"b"}, Tools: []string{"a/pid"}}, []string{"a", "b"}),
		c.SetTray("Coding"),
		c.Give("writer", "Writing"),
		c.Give("coder", sets.Tray),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func newSetsRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, map[string]any{"b": map[string]any{"command": testServerBin, "args": []string{"-name", "b"}}})
	r.waitTool("mcp__b__echo")
	r.gw.SetChoices(twoSets(t))
	return r
}

// TestSetsEachAppListsItsOwn: two apps on each face, each known by the name
// mcptray gave it (stdio --app, its own token), list only their sets and
// are refused, in words, a tool outside them.
func TestSetsEachAppListsItsOwn(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	for _, tc := range []struct {
		face string
		c    *client.Client
		want []string
		deny string
	}{
		{"stdio writer", r.streamAs("writer", "writer"), []string{"a"}, "mcp__b__echo"},
		{"stdio coder", r.streamAs("coder", "coder"), []string{"a", "b"}, "mcp__a__echo"},
		{"http writer", r.httpAs(AppToken(r.token, "writer"), "writer"), []string{"a"}, "mcp__b__echo"},
		{"http coder", r.httpAs(AppToken(r.token, "coder"), "coder"), []string{"a", "b"}, "mcp__a__echo"},
	} {
		if got := servedServers(t, tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("%s lists the tools of %v, want %v", tc.face, got, tc.want)
		}
		got, isErr := callText(t, tc.c, tc.deny, map[string]any{"text": "x"})
		if !isErr || !strings.Contains(got, "not in the") {
			t.Errorf("%s called %s outside its set: %q (error %v)", tc.face, tc.deny, got, isErr)
		}
	}
	// The coder's set holds only a's pid of a.
	c := r.streamAs("coder", "coder")
	if got, isErr := callText(t, c, "mcp__a__pid", nil); isErr {
		t.Errorf("the coder could not call a single tool of its set: %q", got)
	}
}

// TestSetsClientInfoIsNoName: an app that claims another app's clientInfo
// gets its own set, not the other's; an app mcptray does not know gets the
// default for unknown apps, whatever it calls itself.
func TestSetsClientInfoIsNoName(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	// The writer calls itself the coder, on both faces.
	for face, c := range map[string]*client.Client{
		"stdio": r.streamAs("writer", "coder"),
		"http":  r.httpAs(AppToken(r.token, "writer"), "coder"),
	} {
		if got := servedServers(t, c); !slices.Equal(got, []string{"a"}) {
			t.Errorf("%s: the writer calling itself the coder lists %v, want its own set [a]", face, got)
		}
	}
	// Unknown apps get nothing once the person says so.
	choices := twoSets(t)
	choices.Unknown = sets.Nothing
	r.gw.SetChoices(choices)
	for face, c := range map[string]*client.Client{
		"stdio": r.streamAs("", "writer"),
		"http":  r.httpAs(r.token, "coder"),
	} {
		if got := servedServers(t, c); len(got) != 0 {
			t.Errorf("%s: an unknown app calling itself by a known app's name lists %v, want nothing", face, got)
		}
		if got, isErr := callText(t, c, "mcp__a__echo", map[string]any{"text": "x"}); !isErr || !strings.Contains(got, "does not know") {
			t.Errorf("%s: an unknown app called a tool: %q", face, got)
		}
	}
	// A token of the writer's with one character changed is no token.
	forged := AppToken(r.token, "writer")
	forged = forged[:len(forged)-1] + string(rune('a'+(forged[len(forged)-1]-'a'+1)%26))
	if forged == AppToken(r.token, "writer") || forged == r.token {
		t.Fatal("the forged token is the real one")
	}
	req := r.request(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"writer","version":"1"}}}`)
	req.Header.Set("Authorization", "Bearer "+forged)
	if resp, err := httpDo(req); err != nil || resp != 401 {
		t.Errorf("a forged app token: %d %v, want 401", resp, err)
	}
}

// TestSetsSwitchReachesFollowers: making another set the tray's sends the
// apps that follow the tray list_changed within a second, and their next
// list is the new set's; an app with a set of its own hears nothing.
func TestSetsSwitchReachesFollowers(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	heard := func() (chan struct{}, client.ClientOption) {
		ch := make(chan struct{}, 8)
		return ch, func(c *client.Client) {
			c.OnNotification(func(n mcp.JSONRPCNotification) {
				if n.Method == string(mcp.MethodNotificationToolsListChanged) {
					ch <- struct{}{}
				}
			})
		}
	}
	stdioHeard, o1 := heard()
	httpHeard, o2 := heard()
	writerHeard, o3 := heard()
	stdioCoder := r.streamAs("coder", "coder", o1)
	httpCoder := r.httpAs(AppToken(r.token, "coder"), "coder", o2)
	writer := r.streamAs("writer", "writer", o3)
	for _, c := range []*client.Client{stdioCoder, httpCoder, writer} {
		servedServers(t, c)
	}
	choices := twoSets(t)
	if err := choices.SetTray("Writing"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r.gw.SetChoices(choices)
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	for face, ch := range map[string]chan struct{}{"stdio": stdioHeard, "http": httpHeard} {
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("the %s coder heard no list_changed within a second of the switch", face)
		}
	}
	t.Logf("the switch reached both followers in %s", time.Since(start))
	for face, c := range map[string]*client.Client{"stdio": stdioCoder, "http": httpCoder} {
		if got := servedServers(t, c); !slices.Equal(got, []string{"a"}) {
			t.Errorf("%s: after the switch the coder lists %v, want [a]", face, got)
		}
	}
	select {
	case <-writerHeard:
		t.Error("the writer, whose set did not change, was told its list changed")
	default:
	}
}

// httpDo sends req and says the answer's status.
func httpDo(req *http.Request) (int, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// callsKept keeps the records of the calls.
type callsKept struct{ ch chan activity.Call }

func (k callsKept) RecordCall(c activity.Call) { k.ch <- c }

// TestSetsRecordNamesTheKnownApp: the record names the app by the name
// mcptray gave it, not by the clientInfo it claims, and a call refused for
// being outside its set is recorded as refused, with why.
func TestSetsRecordNamesTheKnownApp(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	kept := callsKept{make(chan activity.Call, 4)}
	g := New(r.svc, Options{Recorder: kept})
	if err := g.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.SetChoices(twoSets(t))
	r.gw = g                                   // streamAs serves on r.gw
	c := r.streamAs("writer", "cursor-vscode") // it claims to be Cursor
	callText(t, c, "mcp__a__echo", map[string]any{"text": "x"})
	callText(t, c, "mcp__b__echo", map[string]any{"text": "x"})
	for i, want := range []activity.Outcome{activity.Answered, activity.Refused} {
		select {
		case rec := <-kept.ch:
			if rec.App != "writer" || rec.Outcome != want {
				t.Errorf("record %d: app %q, outcome %q; want writer, %q (%s)", i, rec.App, rec.Outcome, want, rec.Reason)
			}
		case <-time.After(deadline):
			t.Fatalf("no record %d", i)
		}
	}
}

// TestSetsOwnPermissions: a set's own permission wins over the gateway's
// for the apps that get it, and the question names the app and its set.
func TestSetsOwnPermissions(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	asked := make(chan Question, 2)
	g := New(r.svc, Options{Ask: func(_ context.Context, q Question) (bool, error) { asked <- q; return true, nil }})
	if err := g.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	choices := twoSets(t)
	w, _ := choices.Find("Writing")
	w.Permissions = map[string]config.Permission{"mcp__a__echo": config.Ask, "mcp__a__pid": config.Block}
	g.SetChoices(choices)
	r.gw = g
	writer := r.streamAs("writer", "cursor-vscode")
	if got, isErr := callText(t, writer, "mcp__a__echo", map[string]any{"text": "x"}); isErr || got != "x" {
		t.Errorf("the writer's asked call: %q (error %v)", got, isErr)
	}
	select {
	case q := <-asked:
		if q.App != "writer (the Writing set)" || q.Tool != "mcp__a__echo" {
			t.Errorf("the question: app %q, tool %q", q.App, q.Tool)
		}
	default:
		t.Error("the set's Ask did not ask")
	}
	if got, isErr := callText(t, writer, "mcp__a__pid", nil); !isErr || !strings.Contains(got, "blocks") {
		t.Errorf("the set's Block let the call through: %q", got)
	}
	// Another app, with everything, has the gateway's permissions.
	other := r.streamAs("zed", "zed")
	if got, isErr := callText(t, other, "mcp__a__echo", map[string]any{"text": "y"}); isErr || got != "y" {
		t.Errorf("another app's call: %q (error %v)", got, isErr)
	}
	select {
	case q := <-asked:
		t.Errorf("another app was asked about %s: the Writing set's permission reached it", q.Tool)
	default:
	}
}

// TestSetsTokenKeepsToItsSession: a session started with one app's token
// is not reached with another app's token, nor with the gateway's own,
// even knowing its id.
func TestSetsTokenKeepsToItsSession(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	writer := AppToken(r.token, "writer")
	req := r.request(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacy+`","capabilities":{},"clientInfo":{"name":"w","version":"1"}}}`)
	req.Header.Set("Authorization", "Bearer "+writer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize with the writer's token: %s", resp.Status)
	}
	for name, tok := range map[string]string{"another app's token": AppToken(r.token, "coder"), "the gateway's token": r.token} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			req := r.request(t, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			req.Method = method
			req.Header.Set("Authorization", "Bearer "+tok)
			if code, err := httpDo(req); err != nil || code != http.StatusForbidden {
				t.Errorf("%s %s on the writer's session: %d %v, want 403", method, name, code, err)
			}
		}
	}
	// The writer's own token still reaches it.
	req = r.request(t, id, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	req.Header.Set("Authorization", "Bearer "+writer)
	if code, err := httpDo(req); err != nil || code != http.StatusOK {
		t.Errorf("the writer's own token on its session: %d %v", code, err)
	}
}

// TestSetsSessionlessAppToken: on MCP's sessionless revision an app's own
// token names the app for each request, as it names a session's: the
// writer, claiming the coder's clientInfo with its own token, lists and
// calls only its own set, and is refused a tool outside it in words; the
// coder, claiming the writer's, gets the coder's; a forged token is
// refused; the gateway's token with the writer's clientInfo is an app
// mcptray does not know.
func TestSetsSessionlessAppToken(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	do := func(token, clientInfo, method, name, params string) (int, string) {
		t.Helper()
		meta := strings.Replace(modernMeta, `"name":"raw"`, `"name":"`+clientInfo+`"`, 1)
		body := `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{` + params + meta + `}}`
		req := r.request(t, "", body)
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	call := func(token, clientInfo, tool, text string) (int, string) {
		t.Helper()
		return do(token, clientInfo, "tools/call", tool, `"name":"`+tool+`","arguments":{"text":"`+text+`"},`)
	}
	writer, coder := AppToken(r.token, "writer"), AppToken(r.token, "coder")

	code, list := do(writer, "coder", "tools/list", "", "")
	if code != http.StatusOK || !strings.Contains(list, "mcp__a__echo") || strings.Contains(list, "mcp__b__") {
		t.Errorf("the writer's sessionless tools/list, calling itself coder: %d %s", code, list)
	}
	if code, body := call(writer, "coder", "mcp__b__echo", "out of its set"); code != http.StatusOK ||
		strings.Contains(body, "out of its set") || !strings.Contains(body, "is not in the Writing set") || !strings.Contains(body, "mcptray app set writer") {
		t.Errorf("the writer called a tool outside its set on the sessionless revision: %d %s", code, body)
	}
	if code, body := call(writer, "coder", "mcp__a__echo", "in its set"); code != http.StatusOK || !strings.Contains(body, "in its set") {
		t.Errorf("the writer could not call a tool of its set: %d %s", code, body)
	}
	if code, body := call(coder, "writer", "mcp__b__echo", "the coder's"); code != http.StatusOK || !strings.Contains(body, "the coder's") {
		t.Errorf("the coder, calling itself writer, could not call its own set's tool: %d %s", code, body)
	}
	if code, body := call(coder, "writer", "mcp__a__echo", "not the coder's"); strings.Contains(body, `"text":"not the coder's"`) || !strings.Contains(body, "is not in the Coding set") {
		t.Errorf("the coder, calling itself writer, got the writer's set: %d %s", code, body)
	}
	forged := writer[:len(writer)-4] + "0000"
	if forged == writer {
		forged = writer[:len(writer)-4] + "1111"
	}
	if code, body := call(forged, "writer", "mcp__a__echo", "forged"); code != http.StatusUnauthorized || strings.Contains(body, "forged") {
		t.Errorf("a forged app token on the sessionless revision: %d %s", code, body)
	}
	// The gateway's token, the writer's clientInfo: an app mcptray does
	// not know, which gets everything here (the default), not the Writing set.
	if code, body := call(r.token, "writer", "mcp__b__echo", "unknown"); code != http.StatusOK || !strings.Contains(body, "unknown") {
		t.Errorf("an unknown sessionless app calling itself writer: %d %s", code, body)
	}
	// The Apps view's roster: each by the app its token named, the
	// clientInfo it claimed beside; the unknown one named by nothing.
	named := map[string]string{}
	for _, s := range r.gw.Sessions() {
		named[s.Client+" with "+s.Named+"'s token"] = s.Named
	}
	for _, want := range []string{"coder with writer's token", "writer with coder's token", "writer with 's token"} {
		if _, ok := named[want]; !ok {
			t.Errorf("the roster lacks %s: %v", want, named)
		}
	}
}

// TestSetsKeepResourcesAndPrompts: a set holds its servers' resources and
// prompts too: the writer (Writing: a) neither lists nor reads b's.
func TestSetsKeepResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	c := r.streamAs("writer", "writer")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range res.Resources {
		if strings.HasPrefix(rs.Title, "b: ") {
			t.Errorf("the writer lists b's resource %s", rs.URI)
		}
	}
	read := mcp.ReadResourceRequest{}
	read.Params.URI = "mcptray://b/test://greeting"
	if got, err := c.ReadResource(ctx, read); err == nil || !strings.Contains(err.Error(), "not in the Writing set") {
		t.Errorf("the writer read b's resource: %+v, %v", got, err)
	}
	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Name == "mcp__b__greet" {
			t.Error("the writer lists b's prompt")
		}
	}
	get := mcp.GetPromptRequest{}
	get.Params.Name = "mcp__b__greet"
	get.Params.Arguments = map[string]string{"who": "Ada"}
	if got, err := c.GetPrompt(ctx, get); err == nil || !strings.Contains(err.Error(), "not in the Writing set") {
		t.Errorf("the writer got b's prompt: %+v, %v", got, err)
	}
	// Its own server's are there.
	read.Params.URI = "test://greeting"
	if _, err := c.ReadResource(ctx, read); err != nil {
		t.Errorf("the writer could not read a's resource: %v", err)
	}
}

// TestSetsInSearchMode: in search mode an app finds only its set's tools,
// and calling another through call_tool is refused in words.
func TestSetsInSearchMode(t *testing.T) {
	t.Parallel()
	r := newSetsRig(t)
	err := config.ModifyUserFile(r.paths.UserFile(), func(u *config.UserFile) error {
		rules, err := u.GatewayRules()
		rules.Search = true
		if err == nil {
			err = u.SetGatewayRules(rules)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.waitTool(FindTool)
	r.gw.SetChoices(twoSets(t))
	c := r.streamAs("writer", "writer")
	found, _ := callText(t, c, FindTool, map[string]any{"query": "echo"})
	if !strings.Contains(found, "mcp__a__echo") || strings.Contains(found, "mcp__b__echo") {
		t.Errorf("the writer found outside its set:\n%s", found)
	}
	got, isErr := callText(t, c, CallTool, map[string]any{"name": "mcp__b__echo", "arguments": map[string]any{"text": "x"}})
	if !isErr || !strings.Contains(got, "not in the Writing set") {
		t.Errorf("the writer called b's echo through %s: %q", CallTool, got)
	}
}
