package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestEgressAskedDeniedAllowed: a sandboxed server reaches the network
// only through the service's proxy, which asks the person about a host
// not on its list. Denied, the server gets 403 and its detail lists the
// refusal; allowed by the person (as the detail's button does), the next
// request passes without the server restarting; "Always" keeps the host
// in mcptray's config.
//
// The web server listens on this computer's own network address, not
// 127.0.0.1: Go's client never sends loopback through a proxy, and the
// proxy asks about this computer's addresses as "ADDRESS:PORT".
func TestEgressAskedDeniedAllowed(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules (ABI 4, Linux 6.7)")
	}
	ip := ownAddress(t)
	web := func() string {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello") })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	first, second := web(), web()

	h := newHome(t)
	srv := testServer("web")
	srv["args"] = []string{"-name", "web", "-fetch"}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"web": srv}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	questions := make(chan egress.Question, 4)
	answers := make(chan egress.Answer, 4)
	record, err := activity.Open(t.Context(), activity.Options{Path: h.paths.ActivityFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer record.Close()
	s := h.start(true, withRecord(record), func(o *Options) {
		o.Launcher = self
		o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
		h.ask = func(ctx context.Context, q egress.Question) (egress.Reply, error) {
			questions <- q
			select {
			case a := <-answers:
				return egress.Reply{Answer: a, By: "the tray"}, nil
			case <-ctx.Done():
				return egress.Reply{Answer: egress.Deny}, ctx.Err()
			}
		}
	})
	snap := waitFor(t, s, "web connected", func(snap Snapshot) bool { return state(snap, "web") == conn.Connected })
	sv, _ := snap.Find("web")
	since := sv.Since
	if sv.Sandbox == nil || !sv.Sandbox.Protection.Network || !strings.Contains(sv.Sandbox.Words, "only through mcptray") {
		t.Fatalf("web's sandbox: %+v", sv.Sandbox)
	}
	fetch := func(dest string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"url": "http://" + dest + "/"})
		res, err := s.Call(t.Context(), CallRequest{Server: "web", Tool: "fetch", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				text += tc.Text
			}
		}
		return text
	}

	answers <- egress.Deny
	if got := fetch(first); !strings.HasPrefix(got, "403 ") {
		t.Errorf("denied: the server got %q, want 403", got)
	}
	if q := question(t, questions); q.Server != "web" || q.Dest != first || !q.Local {
		t.Errorf("the question: %+v; want web, %s, local", q, first)
	}
	snap = waitFor(t, s, "the refusal in web's detail", func(snap Snapshot) bool {
		sv, _ := snap.Find("web")
		return sv.Sandbox != nil && len(sv.Sandbox.Network) == 1
	})
	sv, _ = snap.Find("web")
	if r := sv.Sandbox.Network[0]; r.Dest != first || r.Command() != "mcptray sandbox allow web --host "+first {
		t.Errorf("refusal %+v, command %q", r, r.Command())
	}

	// The detail's button: the host allowed for good, at once, with no
	// restart and no question.
	if err := s.ChangeSandbox(t.Context(), SandboxChange{Server: "web", Allow: true, Host: first}); err != nil {
		t.Fatal(err)
	}
	if got := fetch(first); got != "200 hello" {
		t.Errorf("allowed: the server got %q, want 200 hello", got)
	}

	// Always, answered in the window, is kept in the config.
	answers <- egress.AllowAlways
	if got := fetch(second); got != "200 hello" {
		t.Errorf("always: the server got %q, want 200 hello", got)
	}
	if q := question(t, questions); q.Dest != second {
		t.Errorf("the second question: %+v; want %s", q, second)
	}
	snap = waitFor(t, s, "both hosts in web's settings", func(snap Snapshot) bool {
		sv, _ := snap.Find("web")
		return sv.Sandbox != nil && slices.Contains(sv.Sandbox.Settings.Hosts, first) && slices.Contains(sv.Sandbox.Settings.Hosts, second)
	})
	sv, _ = snap.Find("web")
	if !sv.Since.Equal(since) || sv.State != conn.Connected {
		t.Errorf("web restarted when hosts were allowed: since %v, then %v (%v)", since, sv.Since, sv.State)
	}
	select {
	case q := <-questions:
		t.Errorf("asked again: %+v", q)
	default:
	}

	// Taken back, the host is asked about again at the next connection.
	if err := s.ChangeSandbox(t.Context(), SandboxChange{Server: "web", Host: second}); err != nil {
		t.Fatal(err)
	}
	answers <- egress.Deny
	if got := fetch(second); !strings.HasPrefix(got, "403 ") {
		t.Errorf("taken back: the server got %q, want 403", got)
	}
	if q := question(t, questions); q.Dest != second {
		t.Errorf("the question after taking it back: %+v; want %s", q, second)
	}

	// Both allowances are trust decisions in the activity record.
	if err := record.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	rows, err := record.Query(t.Context(), activity.Filter{Kind: activity.KindTrust, Oldest: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rows {
		got = append(got, string(e.Action)+" "+e.Target+" "+e.Detail+" by "+e.App)
	}
	// "Always" is recorded with which tool answered (here the tray).
	want := []string{"sandbox-allow web reach " + first + " by ", "sandbox-allow web reach " + second + " by the tray"}
	if !slices.Equal(got, want) {
		t.Errorf("trust decisions %q, want %q", got, want)
	}
}

// ownAddress is an IPv4 address of this computer other than loopback; the
// test is skipped on a computer with none.
func ownAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this computer has no network address but loopback")
	return ""
}

// TestAddDeclaredHosts: a server installed from the MCP Registry may reach
// the hosts its entry declares from the start; removed and added again
// under the same name, it keeps none of what the first was allowed.
func TestAddDeclaredHosts(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx := t.Context()
	entry, _ := json.Marshal(testServer("weather"))
	detail := &registry.ServerDetail{Name: "io.example/weather", Remotes: []registry.Remote{{Type: "streamable-http", URL: "https://api.weather.example/mcp"}}}
	if _, err := s.Add(ctx, AddRequest{Name: "weather", Entry: entry, Registry: detail}); err != nil {
		t.Fatal(err)
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "weather", Allow: true, Read: "~/Documents"}); err != nil {
		t.Fatal(err)
	}
	box, err := s.SandboxOf(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(box.Settings.Hosts, []string{"api.weather.example"}) || !slices.Equal(box.Settings.Read, []string{"~/Documents"}) {
		t.Errorf("settings %+v; want the declared host and ~/Documents", box.Settings)
	}
	if _, err := s.Remove(ctx, "weather"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, AddRequest{Name: "weather", Entry: entry}); err != nil {
		t.Fatal(err)
	}
	if box, err = s.SandboxOf(ctx, "weather"); err != nil || !box.Settings.Empty() {
		t.Errorf("the second weather inherited %+v (%v)", box.Settings, err)
	}
}

// TestSandboxWordsOldNode: a server run by npx on a Node that ignores the
// proxy variables says so where the person reads what it may do.
func TestSandboxWordsOldNode(t *testing.T) {
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules (ABI 4, Linux 6.7)")
	}
	t.Parallel()
	h := newHome(t)
	bin := filepath.Join(h.dir, "oldnode")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "node"), []byte("#!/bin/sh\necho v20.11.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"weather": map[string]any{"command": "npx", "args": []string{"-y", "weather-mcp"}}}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) {
		o.Only, o.Launcher = []string{}, self
		o.Conn.BaseEnv = []string{"HOME=" + h.dir, "PATH=" + bin}
	})
	box, err := s.SandboxOf(t.Context(), "weather")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(box.Words, "Node v20.11.1, does not send the server's own web requests through mcptray") {
		t.Errorf("words %q", box.Words)
	}
}

// question waits for the next question the proxy asked, up to the tests'
// deadline.
func question(t *testing.T, questions <-chan egress.Question) egress.Question {
	t.Helper()
	select {
	case q := <-questions:
		return q
	case <-time.After(deadline):
		t.Fatalf("no question within %s", deadline)
	}
	return egress.Question{}
}

// TestSandboxedNeedsTheProxy: a service that runs servers in sandboxes
// does not start them without the proxy their network goes through: they
// would have no way out at all, and say nothing of why.
func TestSandboxedNeedsTheProxy(t *testing.T) {
	h := newHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Paths: h.paths, Store: h.store, Launcher: self})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if o := (Options{Paths: h.paths, Store: h.store, Launcher: self}); !o.NeedsProxy() {
		t.Fatal("a service with a launcher says it needs no proxy")
	}
	if err := s.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "egress proxy") {
		t.Fatalf("started without the proxy: %v", err)
	}
}
