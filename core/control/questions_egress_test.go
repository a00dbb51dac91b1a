package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/gateway"
)

// TestEgressQuestions: a sandboxed server's request through the real
// egress proxy to a host not on its list waits; the question reaches the
// window as an egress question naming the server and the host; Always
// lets the request go ahead and is handed to Remember, Deny refuses the
// next host with 403.
func TestEgressQuestions(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	t.Cleanup(site.Close)
	port := strconv.Itoa(site.Listener.Addr().(*net.TCPAddr).Port)
	opened := make(chan string, 4)
	r := serveAt(t, testPaths(t), opened)
	remembered := make(chan string, 4)
	proxy := egress.New(egress.Options{
		Ask:      r.srv.AskEgress,
		Remember: func(server, dest, by string) error { remembered <- server + " " + dest + " " + by; return nil },
		Resolve: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	})
	if err := proxy.Start(r.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u, _ := url.Parse(proxy.Env("weather")["HTTP_PROXY"])
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	type result struct {
		status int
		body   string
		err    error
	}
	get := func(host string) <-chan result {
		out := make(chan result, 1)
		go func() {
			res, err := c.Get("http://" + host + ":" + port + "/")
			if err != nil {
				out <- result{err: err}
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			out <- result{status: res.StatusCode, body: string(b)}
		}()
		return out
	}

	got := get("api.test.example")
	if s := within(t, opened, "opening the window"); s != "weather" {
		t.Errorf("the window opened at %q, want weather", s)
	}
	qs, err := r.cl.Questions(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := within(t, qs, "the egress question")
	dest := "api.test.example:" + port
	if q.Kind != KindEgress || q.Server != "weather" || q.Egress == nil || q.Egress.Dest != dest ||
		q.Egress.Host != "api.test.example" || strconv.Itoa(q.Egress.Port) != port || q.Egress.Local {
		t.Fatalf("question = %+v, egress %+v", q, q.Egress)
	}
	if want := "Allow weather to reach " + dest + "?"; q.Params.Message != want {
		t.Errorf("message = %q, want %q", q.Params.Message, want)
	}
	if err := r.cl.Answer(r.ctx, q.ID, PermissionAnswer(true, true)); err != nil {
		t.Fatal(err)
	}
	if res := within(t, got, "the request allowed always"); res.err != nil || res.status != http.StatusOK || res.body != "hello from "+dest {
		t.Errorf("allowed always: %+v", res)
	}
	// Kept with which tool answered, for the record.
	if s := within(t, remembered, "Remember"); !strings.HasPrefix(s, "weather "+dest+" ") || !strings.Contains(s, "pid ") {
		t.Errorf("remembered %q", s)
	}
	if g := within(t, qs, "the question going"); !g.Gone || g.ID != q.ID {
		t.Errorf("after the answer: %+v", g)
	}

	got = get("other.test.example")
	q = within(t, qs, "the second egress question")
	if err := r.cl.Answer(r.ctx, q.ID, PermissionAnswer(false, false)); err != nil {
		t.Fatal(err)
	}
	if res := within(t, got, "the denied request"); res.status != http.StatusForbidden || !strings.Contains(res.body, "you denied it") {
		t.Errorf("denied: %+v", res)
	}
}

// TestEgressWithoutWindow: with no window to open, the proxy's question
// fails at once with egress.ErrNoWindow.
func TestEgressWithoutWindow(t *testing.T) {
	t.Parallel()
	srv := &Endpoint{}
	a, err := srv.AskEgress(context.Background(), egress.Question{Server: "weather", Host: "api.weather.gov", Port: 443, Dest: "api.weather.gov"})
	if !errors.Is(err, egress.ErrNoWindow) || a.Answer != egress.Deny {
		t.Errorf("AskEgress with no window = %v, %v; want Deny, ErrNoWindow", a, err)
	}
}

// TestFollowEgress: the tray, following the proxy's questions in this
// process, hears of one waiting already and of each new one, answers it,
// and keeps the window closed for them; a permission question, which the
// tray does not show, still opens the window.
func TestFollowEgress(t *testing.T) {
	t.Parallel()
	opened := make(chan string, 4)
	srv := &Endpoint{OpenWindow: func(server string) error { opened <- server; return nil }}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := egress.Question{Server: "weather", Host: "api.weather.gov", Port: 443, Dest: "api.weather.gov"}
	answers := make(chan egress.Reply, 2)
	go func() { a, _ := srv.AskEgress(ctx, q); answers <- a }() // asked before the tray follows: the window opens
	if s := within(t, opened, "the window opening"); s != "weather" {
		t.Errorf("opened at %q", s)
	}
	qs := srv.FollowEgress(ctx)
	first := within(t, qs, "the question waiting")
	if first.Kind != KindEgress || first.Egress == nil || first.Egress.Dest != "api.weather.gov" {
		t.Fatalf("question %+v", first)
	}
	if err := srv.AnswerQuestion(first.ID, PermissionAnswer(true, true)); err != nil {
		t.Fatal(err)
	}
	if a := within(t, answers, "the answer"); a.Answer != egress.AllowAlways || a.By != "the tray" {
		t.Errorf("answered Always, got %v", a)
	}
	if g := within(t, qs, "the question going"); !g.Gone || g.ID != first.ID {
		t.Errorf("after the answer: %+v", g)
	}

	go func() { a, _ := srv.AskEgress(ctx, q); answers <- a }() // the tray follows: no window
	second := within(t, qs, "the second question")
	if err := srv.AnswerQuestion(second.ID, PermissionAnswer(false, false)); err != nil {
		t.Fatal(err)
	}
	if a := within(t, answers, "the second answer"); a.Answer != egress.Deny {
		t.Errorf("denied, got %v", a)
	}
	if g := within(t, qs, "the second question going"); !g.Gone || g.ID != second.ID {
		t.Errorf("after the second answer: %+v", g)
	}
	select {
	case s := <-opened:
		t.Errorf("the window opened at %q while the tray followed", s)
	default:
	}

	go srv.AskPermission(ctx, gateway.Question{Server: "fs", Tool: "mcp__fs__write", ServerTool: "write"})
	if s := within(t, opened, "the window opening for a permission question"); s != "fs" {
		t.Errorf("opened at %q", s)
	}
	select {
	case g := <-qs:
		t.Errorf("the tray heard of a question it does not show: %+v", g)
	default:
	}
}

// TestEgressQuestionChain: the proxy's question asked by the flow guard
// reaches the window with its chain, sanitised, before the question.
func TestEgressQuestionChain(t *testing.T) {
	t.Parallel()
	opened := make(chan string, 4)
	r := serveAt(t, testPaths(t), opened)
	chain := "Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch.\u202e It now wants to send data through store (to backup.example)."
	answers := make(chan egress.Reply, 1)
	go func() {
		a, _ := r.srv.AskEgress(r.ctx, egress.Question{Server: "store", Host: "backup.example", Port: 443, Dest: "backup.example", Chain: chain})
		answers <- a
	}()
	within(t, opened, "opening the window")
	qs, err := r.cl.Questions(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	q := within(t, qs, "the egress question")
	clean := strings.ReplaceAll(chain, "\u202e", "")
	if q.Egress == nil || q.Egress.Chain != clean || q.Params.Message != clean+" Allow store to reach backup.example?" {
		t.Fatalf("question = %+v, egress %+v", q, q.Egress)
	}
	if err := r.cl.Answer(r.ctx, q.ID, PermissionAnswer(false, false)); err != nil {
		t.Fatal(err)
	}
	if a := within(t, answers, "the answer"); a.Answer != egress.Deny {
		t.Errorf("answered %+v", a)
	}
}
