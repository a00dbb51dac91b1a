package control_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/instance"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// clock is a clock that tests move forward.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// appsDeadline bounds every wait.
const appsDeadline = 20 * time.Second

// gatewayRig is a running mcptray (core/instance: the service, its
// gateway and the control endpoint, as mcptray runs them), and a client of
// it.
type gatewayRig struct {
	paths config.Paths
	svc   *service.Service
	cl    *control.Client
	clock *clock
	stop  func() // stops the running mcptray, as quitting it does
}

func newGatewayRig(t *testing.T) *gatewayRig {
	t.Helper()
	p := control.TempPaths(t)
	r := &gatewayRig{paths: p, clock: &clock{t: time.Now()}}
	inst, err := instance.Listen(instance.Options{
		Service: service.Options{Paths: p, Store: secrettest.New(), Now: r.clock.now,
			// Named as mcptray's program, so that the config loader knows
			// the entry for the gateway's and does not run it.
			GatewayCommand: filepath.Join(p.Home, "bin", "mcptray")},
		HTTP: gateway.HTTPOptions{Addr: "127.0.0.1:0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	r.svc, r.stop = inst.Service, inst.Quit
	if err := inst.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.cl, err = control.Dial(inst.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cl.Close() })
	return r
}

// app returns the app called name from the client's Apps.
func (r *gatewayRig) app(t *testing.T, name string) service.App {
	t.Helper()
	apps, err := r.cl.Apps(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no app %q in %+v", name, apps)
	return service.App{}
}

// TestAppArrives: connecting Cursor writes the gateway into its config;
// until Cursor starts it the app is waiting, after two minutes it has not
// arrived (with what to do), and a session that says it is cursor-vscode,
// reaching the gateway the way mcptray stdio does, makes it in use with
// the number of tools it was given.
func TestAppArrives(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	if err := os.MkdirAll(filepath.Join(r.paths.Home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	cursor := r.app(t, "Cursor")
	if !cursor.Found || cursor.Connected || cursor.State != service.AppNotConnected || cursor.Status != "not connected" {
		t.Fatalf("Cursor before connecting: %+v", cursor)
	}
	if vs := r.app(t, "VS Code"); vs.Found {
		t.Errorf("VS Code is found with no folder of its own: %+v", vs)
	}

	res, err := r.cl.ConnectApp(ctx, service.ConnectRequest{App: "cursor"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(r.paths.Home, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if e := file.MCPServers[config.GatewayEntry]; filepath.Base(e.Command) != "mcptray" || strings.Join(e.Args, " ") != "stdio --app cursor" {
		t.Errorf("Cursor's config after connecting: %s", b)
	}
	if res.App.State != service.AppWaiting || !strings.Contains(res.App.Status, "waiting for Cursor to start it; quit it fully and open it again") {
		t.Errorf("just connected: %+v", res.App)
	}

	r.clock.add(service.ArrivalWindow + time.Second)
	late := r.app(t, "Cursor")
	if late.State != service.AppNotArrived || !strings.Contains(late.Hint, "Quit Cursor fully") {
		t.Errorf("two minutes later, with no session: %+v", late)
	}

	// Cursor starts mcptray stdio, which reaches the gateway over the
	// control socket.
	st, err := control.OpenStream(ctx, r.paths, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.NewIO(st, appEnd{st}, nil)
	c := client.NewClient(tr)
	changed := make(chan struct{}, 1)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "cursor-vscode", Version: "1.7.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	if a := r.app(t, "Cursor"); a.State != service.AppInUse || a.Status != "in use — has not asked for the tools yet" {
		t.Errorf("after initialize: %+v", a)
	}
	// mcptray's own server has tools; wait until the gateway offers them.
	var list *mcp.ListToolsResult
	for {
		list, err = c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Tools) > 0 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the gateway offered no tools")
		}
	}
	a := r.app(t, "Cursor")
	want := "in use — sees " + plural(len(list.Tools))
	if a.State != service.AppInUse || a.Tools != len(list.Tools) || a.Status != want || a.Hint != "" {
		t.Errorf("in use: %+v, want %q", a, want)
	}
	if len(a.Sessions) != 1 || a.Sessions[0].Client != "cursor-vscode" || a.Sessions[0].ClientVersion != "1.7.0" ||
		a.Sessions[0].Face != gateway.FaceStdio || a.Sessions[0].ToolLimit != 40 {
		t.Errorf("its session: %+v", a.Sessions)
	}

	// Cursor quits: mcptray stdio ends its session.
	notices, err := r.cl.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	for r.app(t, "Cursor").State == service.AppInUse {
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatal("Cursor's session did not end when it quit")
		}
	}
	if a := r.app(t, "Cursor"); a.State != service.AppIdle || !strings.HasPrefix(a.Status, "connected — last used at ") || len(a.Sessions) != 1 || !a.Sessions[0].Ended {
		t.Errorf("after Cursor quit: %+v", a)
	}
	if _, err := r.cl.DisconnectApp(ctx, "cursor"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.paths.Home, ".cursor", "mcp.json")); strings.Contains(string(b), config.GatewayEntry) {
		t.Errorf("Cursor's config after disconnecting: %s", b)
	}
	if _, err := os.Stat(filepath.Join(r.paths.Home, ".cursor", "mcp.json.bak")); err != nil {
		t.Errorf("no backup: %v", err)
	}
}

// appEnd is an app's end of a Stream, for mcp-go's stdio transport:
// closing it tells mcptray the app is done, as mcptray stdio does when the
// app closes its stdin.
type appEnd struct{ *control.Stream }

func (a appEnd) Close() error { return a.CloseWrite() }

func plural(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

// TestGatewayRulesFromClient: permissions and hidden tools set through the
// control endpoint land in mcptray's config and in the next Snapshot.
func TestGatewayRulesFromClient(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	if err := r.cl.SetPermission(ctx, "mcp__files__write", config.Block); err != nil {
		t.Fatal(err)
	}
	if err := r.cl.SetHidden(ctx, "notes", true); err != nil {
		t.Fatal(err)
	}
	if err := r.cl.SetHidden(ctx, "mcp__files__read", true); err != nil {
		t.Fatal(err)
	}
	if err := r.cl.SetHidden(ctx, "mcp__files__read", false); err != nil {
		t.Fatal(err)
	}
	if err := r.cl.SetPermission(ctx, "files", config.Allow); err == nil {
		t.Error("a permission for a name that is no tool's was taken")
	}
	snap, err := r.cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Gateway.Permissions["mcp__files__write"] != config.Block || len(snap.Gateway.Hidden) != 1 || snap.Gateway.Hidden[0] != "notes" {
		t.Errorf("rules after setting them: %+v", snap.Gateway)
	}
	u, err := config.ReadUserFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if rules, _ := u.GatewayRules(); rules.Permissions["mcp__files__write"] != config.Block {
		t.Errorf("config.json's rules: %+v", rules)
	}
	if err := r.cl.SetPermission(ctx, "mcp__files__write", ""); err != nil {
		t.Fatal(err)
	}
	if snap, _ := r.cl.Snapshot(ctx); len(snap.Gateway.Permissions) != 0 {
		t.Errorf("after reset: %+v", snap.Gateway.Permissions)
	}
	if _, err := r.cl.GatewayToken(ctx); err != nil {
		t.Errorf("the gateway's token: %v", err)
	}
}

// TestAppKnownByItsName: the roster counts a session for the app mcptray
// named it (mcptray stdio --app), whatever its clientInfo says. A program
// started as the writer that calls itself cursor-vscode does not make
// Cursor in use: the writer is; a session started as Cursor's is
// Cursor's, whatever it calls itself.
func TestAppKnownByItsName(t *testing.T) {
	t.Parallel()
	r := newGatewayRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), appsDeadline)
	defer cancel()
	if _, err := r.cl.ConnectApp(ctx, service.ConnectRequest{App: "cursor"}); err != nil {
		t.Fatal(err)
	}
	open := func(app, clientInfo string) *client.Client {
		t.Helper()
		st, err := control.OpenStreamAs(ctx, r.paths, app, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(transport.NewIO(st, appEnd{st}, nil))
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = "2025-11-25"
		init.Params.ClientInfo = mcp.Implementation{Name: clientInfo, Version: "1.7.0"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		return c
	}

	open("writer", "cursor-vscode")
	if a := r.app(t, "Cursor"); a.State == service.AppInUse || len(a.Sessions) != 0 {
		t.Errorf("the writer, calling itself cursor-vscode, made Cursor: %+v", a)
	}
	if a := r.app(t, "writer"); a.State != service.AppInUse || len(a.Sessions) != 1 || a.Sessions[0].Named != "writer" {
		t.Errorf("the writer: %+v", a)
	}

	open("cursor", "some-probe")
	if a := r.app(t, "Cursor"); a.State != service.AppInUse || len(a.Sessions) != 1 || a.Sessions[0].Client != "some-probe" {
		t.Errorf("a session mcptray started as Cursor's: %+v", a)
	}
}
