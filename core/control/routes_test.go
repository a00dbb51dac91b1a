package control

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

// TestRoutesServeTheAPI: the route table names one route for each method
// of the running mcptray's API and none that is not one; over the socket,
// each of the Client's methods asks for exactly the route the table names
// for it, and that route calls exactly that method of the endpoint's API. A
// method added to the API (and so to the Client) without its route fails
// here: the routes are strings, which nothing checks when the program is
// built.
func TestRoutesServeTheAPI(t *testing.T) {
	t.Parallel()
	api := reflect.TypeFor[service.API]()
	rec := &recorder{}
	srv := &Endpoint{API: rec}
	routeOf := map[string]string{} // API method → pattern
	patterns := map[string]bool{}
	for _, r := range srv.routes() {
		if patterns[r.pattern] {
			t.Errorf("the table names %q twice", r.pattern)
		}
		patterns[r.pattern] = true
		if r.api == "" {
			continue
		}
		if _, ok := api.MethodByName(r.api); !ok {
			t.Errorf("%s serves %s, which the API does not have", r.pattern, r.api)
		}
		if was, ok := routeOf[r.api]; ok {
			t.Errorf("%s is served twice, by %s and %s", r.api, was, r.pattern)
		}
		routeOf[r.api] = r.pattern
	}
	for i := range api.NumMethod() {
		if m := api.Method(i).Name; routeOf[m] == "" {
			t.Errorf("the API's %s has no route in the table (routes.go)", m)
		}
	}

	p := testPaths(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
	})
	cl, err := DialAs(ctx, p, CommandLine)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sent := &sentRequests{next: cl.hc.Transport}
	cl.hc.Transport = sent

	client := reflect.ValueOf(cl)
	for i := range api.NumMethod() {
		m := api.Method(i).Name
		rec.reset()
		sent.reset()
		callCtx, stop := context.WithTimeout(ctx, 10*time.Second)
		err := callZero(callCtx, client.MethodByName(m))
		stop()
		if errors.Is(err, ErrOlder) {
			t.Errorf("Client.%s: the endpoint does not know its request (%v)", m, sent.list())
			continue
		}
		if got := sent.list(); !slices.Equal(got, []string{routeOf[m]}) {
			t.Errorf("Client.%s asked for %q; the table serves it at %q", m, got, routeOf[m])
		}
		if got := rec.list(); !slices.Equal(got, []string{m}) {
			t.Errorf("Client.%s's route called %q of the API, want %s", m, got, m)
		}
	}

	// What only the endpoint adds: each of the Client's other methods asks
	// for a route of the table, which knows it.
	for i := range client.NumMethod() {
		m := client.Type().Method(i).Name
		if _, ok := api.MethodByName(m); ok || m == "Close" {
			continue
		}
		sent.reset()
		callCtx, stop := context.WithTimeout(ctx, 10*time.Second)
		err := callZero(callCtx, client.Method(i))
		stop()
		got := sent.list()
		if errors.Is(err, ErrOlder) || len(got) != 1 || !patterns[got[0]] {
			t.Errorf("Client.%s asked for %q (%v), which the table does not serve", m, got, err)
		}
	}
}

// callZero calls fn with ctx and the zero value of each other argument,
// and returns its error, if it returns one.
func callZero(ctx context.Context, fn reflect.Value) error {
	ft := fn.Type()
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for j := 1; j < ft.NumIn(); j++ {
		args = append(args, reflect.Zero(ft.In(j)))
	}
	out := fn.Call(args)
	if len(out) == 0 {
		return nil
	}
	err, _ := out[len(out)-1].Interface().(error)
	return err
}

// sentRequests records each request a Client sends, as a route's pattern
// would read it ("POST /v1/approve").
type sentRequests struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []string
}

func (s *sentRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.sent = append(s.sent, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	return s.next.RoundTrip(r)
}

func (s *sentRequests) reset() {
	s.mu.Lock()
	s.sent = nil
	s.mu.Unlock()
}

func (s *sentRequests) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

// recorder is a running mcptray's API that records which of its methods
// are called, and answers each with zero values.
type recorder struct {
	mu   sync.Mutex
	hits []string
}

var _ service.API = (*recorder)(nil)

func (r *recorder) hit(m string) {
	r.mu.Lock()
	r.hits = append(r.hits, m)
	r.mu.Unlock()
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.hits = nil
	r.mu.Unlock()
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hits)
}

// Subscribe's stream ends at once.
func (r *recorder) Subscribe(context.Context) (<-chan struct{}, error) {
	r.hit("Subscribe")
	ch := make(chan struct{})
	close(ch)
	return ch, nil
}

func (r *recorder) AcceptTools(_ context.Context, _ string, _ []string) (_ service.Server, _ error) {
	r.hit("AcceptTools")
	return
}
func (r *recorder) Activity(_ context.Context, _ service.ActivityFilter) (_ []service.ActivityEntry, _ error) {
	r.hit("Activity")
	return
}
func (r *recorder) ActivityNames(_ context.Context, _ time.Time) (_ service.ActivityNames, _ error) {
	r.hit("ActivityNames")
	return
}
func (r *recorder) ActivitySettings(_ context.Context) (_ service.ActivitySettings, _ error) {
	r.hit("ActivitySettings")
	return
}
func (r *recorder) ActivityToday(_ context.Context) (_ service.ActivitySummary, _ error) {
	r.hit("ActivityToday")
	return
}
func (r *recorder) Add(_ context.Context, _ service.AddRequest) (_ service.AddResult, _ error) {
	r.hit("Add")
	return
}
func (r *recorder) AddDemo(_ context.Context) (_ service.FolderResult, _ error) {
	r.hit("AddDemo")
	return
}
func (r *recorder) AddFolder(_ context.Context, _ string) (_ service.FolderResult, _ error) {
	r.hit("AddFolder")
	return
}
func (r *recorder) Approve(_ context.Context, _ string) (_ service.Server, _ error) {
	r.hit("Approve")
	return
}
func (r *recorder) Apps(_ context.Context) (_ []service.App, _ error) { r.hit("Apps"); return }
func (r *recorder) Call(_ context.Context, _ service.CallRequest) (_ *mcp.CallToolResult, _ error) {
	r.hit("Call")
	return
}
func (r *recorder) ChangeSandbox(_ context.Context, _ service.SandboxChange) (_ error) {
	r.hit("ChangeSandbox")
	return
}
func (r *recorder) CheckSandbox(_ context.Context) (_ sandbox.Report, _ error) {
	r.hit("CheckSandbox")
	return
}
func (r *recorder) ConnectApp(_ context.Context, _ service.ConnectRequest) (_ service.ConnectResult, _ error) {
	r.hit("ConnectApp")
	return
}
func (r *recorder) Deny(_ context.Context, _ string) (_ service.Server, _ error) {
	r.hit("Deny")
	return
}
func (r *recorder) Disable(_ context.Context, _ string) (_ error) { r.hit("Disable"); return }
func (r *recorder) DisconnectApp(_ context.Context, _ string) (_ service.ConnectResult, _ error) {
	r.hit("DisconnectApp")
	return
}
func (r *recorder) Enable(_ context.Context, _ string) (_ error)       { r.hit("Enable"); return }
func (r *recorder) GatewayToken(_ context.Context) (_ string, _ error) { r.hit("GatewayToken"); return }
func (r *recorder) InstallBundle(_ context.Context, _ service.BundleRequest) (_ service.BundleResult, _ error) {
	r.hit("InstallBundle")
	return
}
func (r *recorder) KeepHeld(_ context.Context, _ string, _ []string) (_ service.Server, _ error) {
	r.hit("KeepHeld")
	return
}
func (r *recorder) LastSandboxCheck(_ context.Context) (_ *sandbox.Report, _ error) {
	r.hit("LastSandboxCheck")
	return
}
func (r *recorder) LookAtTools(_ context.Context, _ string) (_ service.Look, _ error) {
	r.hit("LookAtTools")
	return
}
func (r *recorder) MoveSecrets(_ context.Context, _ string) (_ service.MoveSecretsResult, _ error) {
	r.hit("MoveSecrets")
	return
}
func (r *recorder) PauseAll(_ context.Context) (_ error) { r.hit("PauseAll"); return }
func (r *recorder) Remove(_ context.Context, _ string) (_ service.RemoveResult, _ error) {
	r.hit("Remove")
	return
}
func (r *recorder) RemoveFolder(_ context.Context, _ string) (_ error) { r.hit("RemoveFolder"); return }
func (r *recorder) ResumeAll(_ context.Context) (_ error)              { r.hit("ResumeAll"); return }
func (r *recorder) Retry(_ context.Context, _ string) (_ error)        { r.hit("Retry"); return }
func (r *recorder) SandboxOf(_ context.Context, _ string) (_ service.Sandbox, _ error) {
	r.hit("SandboxOf")
	return
}
func (r *recorder) SearchCatalogue(_ context.Context, _ string) (_ service.CatalogueResult, _ error) {
	r.hit("SearchCatalogue")
	return
}
func (r *recorder) Secrets(_ context.Context, _ string) (_ []service.SecretInfo, _ error) {
	r.hit("Secrets")
	return
}
func (r *recorder) SetAcceptChanges(_ context.Context, _ string, _ bool) (_ error) {
	r.hit("SetAcceptChanges")
	return
}
func (r *recorder) SetActivitySettings(_ context.Context, _ service.ActivitySettings) (_ error) {
	r.hit("SetActivitySettings")
	return
}
func (r *recorder) SetGuardLabels(_ context.Context, _ string, _ service.LabelChange, _ bool) (_ error) {
	r.hit("SetGuardLabels")
	return
}
func (r *recorder) SetGuardMode(_ context.Context, _ service.GuardMode) (_ error) {
	r.hit("SetGuardMode")
	return
}
func (r *recorder) SetHidden(_ context.Context, _ string, _ bool) (_ error) {
	r.hit("SetHidden")
	return
}
func (r *recorder) SetPermission(_ context.Context, _ string, _ service.Permission) (_ error) {
	r.hit("SetPermission")
	return
}
func (r *recorder) SetSandbox(_ context.Context, _ string, _ bool) (_ error) {
	r.hit("SetSandbox")
	return
}
func (r *recorder) SetSearch(_ context.Context, _ bool) (_ error) { r.hit("SetSearch"); return }
func (r *recorder) SetSecret(_ context.Context, _ service.SecretRequest) (_ error) {
	r.hit("SetSecret")
	return
}
func (r *recorder) Settle(_ context.Context) (_ service.Snapshot, _ error) { r.hit("Settle"); return }
func (r *recorder) SignIn(_ context.Context, _ string, _ service.SignInOptions) (_ error) {
	r.hit("SignIn")
	return
}
func (r *recorder) SignInIdP(_ context.Context) (_ error)         { r.hit("SignInIdP"); return }
func (r *recorder) SignOut(_ context.Context, _ string) (_ error) { r.hit("SignOut"); return }
func (r *recorder) SignOutIdP(_ context.Context) (_ error)        { r.hit("SignOutIdP"); return }
func (r *recorder) Snapshot(_ context.Context) (_ service.Snapshot, _ error) {
	r.hit("Snapshot")
	return
}
func (r *recorder) Tools(_ context.Context, _ string) (_ []tools.Tool, _ error) {
	r.hit("Tools")
	return
}
func (r *recorder) UnsetSecret(_ context.Context, _ service.SecretRequest) (_ error) {
	r.hit("UnsetSecret")
	return
}
func (r *recorder) VerifyActivity(_ context.Context) (_ service.ActivityVerification, _ error) {
	r.hit("VerifyActivity")
	return
}
