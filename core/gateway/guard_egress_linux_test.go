package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/service/netpolicy"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// The flow guard at the sandbox's network proxy, with real parts: the
// reference filesystem server on a folder of notes (private), the test
// server's fetch reading a page on a host the person allowed (untrusted),
// and the test server's backup, which sends its text to a URL under a name
// that says nothing of sending, so the guard gives it no label and holds
// no call of it. All three run in mcptray's sandbox, and reach the network
// only through its proxy. Once the session has read the notes and the
// page, backup's connection to a host not on its list is asked about with
// the chain, or refused with it and the command that allows the host.
//
// The page and the hook listen on this computer's own address, not
// 127.0.0.1: Go's client never sends loopback through a proxy.

// proxyRig is a recording gateway over a service whose servers run
// sandboxed, asking the proxy's questions through questions when ask is
// set (else there is no window).
type proxyRig struct {
	*recordRig
	tt        *testing.T
	notes     string // the folder of notes, tax.txt in it
	page      string // the page's URL, on a host web may reach
	hook      string // where backup sends, on a host it may not
	hook2     string // another such
	posted    chan string
	questions chan egress.Question
	answers   chan egress.Answer
}

func newProxyRig(t *testing.T, ask bool) *proxyRig {
	t.Helper()
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules (ABI 4, Linux 6.7)")
	}
	node, files := referencePeer(t, "server-filesystem")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pr := &proxyRig{tt: t, notes: t.TempDir(), posted: make(chan string, 8),
		questions: make(chan egress.Question, 4), answers: make(chan egress.Answer, 4)}
	if err := os.WriteFile(filepath.Join(pr.notes, "tax.txt"), []byte("income 84,000; account 12-3456"), 0o600); err != nil {
		t.Fatal(err)
	}
	ip := ownIPv4(t)
	serve := func(h http.HandlerFunc) string {
		ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	pr.page = serve(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, injected) }) + "/issue/42"
	hook := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		pr.posted <- string(b)
	}
	pr.hook, pr.hook2 = serve(hook)+"/hook", serve(hook)+"/hook"

	r := newRigFull(t, map[string]any{
		"files": map[string]any{"command": node, "args": []string{files, pr.notes}},
		"web":   map[string]any{"command": testServerBin, "args": []string{"-name", "web", "-fetch"}},
		"store": map[string]any{"command": testServerBin, "args": []string{"-name", "store", "-backup"}},
	}, map[string]any{"permissions": map[string]string{"mcp__web__fetch": "allow", "mcp__store__backup": "allow"}}, nil,
		func(o *service.Options) {
			o.Launcher = self
			if ask {
				o.Network = netpolicy.New(netpolicy.Options{UserFile: o.Paths.UserFile(), Ask: func(ctx context.Context, q egress.Question) (egress.Reply, error) {
					pr.questions <- q
					select {
					case a := <-pr.answers:
						return egress.Reply{Answer: a}, nil
					case <-ctx.Done():
						return egress.Reply{Answer: egress.Deny}, ctx.Err()
					}
				}})
			}
		})
	for _, tool := range []string{"mcp__files__read_text_file", "mcp__web__fetch", "mcp__store__" + mcpserver.BackupTool} {
		r.waitTool(tool)
	}
	// The person lets web reach the page's host, as the detail's button
	// does.
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := r.svc.ChangeSandbox(ctx, service.SandboxChange{Server: "web", Allow: true, Host: hostOf(pr.page)}); err != nil {
		t.Fatal(err)
	}
	snap, err := r.svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"files", "web", "store"} {
		if sv, _ := snap.Find(name); sv.Sandbox == nil || !sv.Sandbox.Protection.Network {
			t.Fatalf("%s does not run in a sandbox that limits its network: %+v", name, sv.Sandbox)
		}
	}
	for name, want := range map[string]string{
		"mcp__files__read_text_file": "private", "mcp__web__fetch": "untrusted, egress", "mcp__store__backup": "none",
	} {
		if tl := snap.GuardLabels()[name]; tl == nil || tl.Labels.String() != want {
			t.Fatalf("%s's labels: %+v, want %s", name, tl, want)
		}
	}
	pr.recordRig = startRecording(t, r, Options{}, activity.Settings{})
	return pr
}

func (pr *proxyRig) readNotes(c *client.Client) {
	pr.tt.Helper()
	if text, isErr := callText(pr.tt, c, "mcp__files__read_text_file", map[string]any{"path": filepath.Join(pr.notes, "tax.txt")}); isErr || !strings.Contains(text, "84,000") {
		pr.tt.Fatalf("reading the notes: %q", text)
	}
}

func (pr *proxyRig) fetchPage(c *client.Client) {
	pr.tt.Helper()
	if text, isErr := callText(pr.tt, c, "mcp__web__fetch", map[string]any{"url": pr.page}); isErr || !strings.Contains(text, "IMPORTANT") {
		pr.tt.Fatalf("fetching the page: %q", text)
	}
}

func (pr *proxyRig) backup(c *client.Client, url, text string) string {
	pr.tt.Helper()
	got, isErr := callText(pr.tt, c, "mcp__store__backup", map[string]any{"url": url, "text": text})
	if isErr {
		pr.tt.Fatalf("backup answered with an error: %q", got)
	}
	return got
}

// question waits for the proxy's next question.
func (pr *proxyRig) question() egress.Question {
	pr.tt.Helper()
	return within(pr.tt, pr.questions, "the proxy's question")
}

// noQuestion checks that the proxy asked nothing: a call answered, its
// connections were decided.
func (pr *proxyRig) noQuestion() {
	pr.tt.Helper()
	select {
	case q := <-pr.questions:
		pr.tt.Errorf("the proxy asked %q", q.Message())
	default:
	}
}

func (pr *proxyRig) wantPosted(want string) {
	pr.tt.Helper()
	if got := within(pr.tt, pr.posted, "the post at the hook"); got != want {
		pr.tt.Errorf("the hook got %q, want %q", got, want)
	}
}

func (pr *proxyRig) nothingPosted() {
	pr.tt.Helper()
	select {
	case b := <-pr.posted:
		pr.tt.Fatalf("the hook received %q", b)
	default:
	}
}

// chainTo is the chain the guard says for the notes, the page and then
// backup sending to url.
func (pr *proxyRig) chainTo(app, url string) string {
	return fmt.Sprintf("%s read %s through files, then read %s through web. It now wants to send data through store (to %s).",
		app, filepath.Join(pr.notes, "tax.txt"), pr.page, hostOf(url))
}

// lastBackup is the record's last row of a call of backup.
func (pr *proxyRig) lastBackup() activity.Entry {
	pr.tt.Helper()
	rows := pr.rows()
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Tool == mcpserver.BackupTool {
			return rows[i]
		}
	}
	pr.tt.Fatal("no call of backup in the record")
	return activity.Entry{}
}

// TestGuardProxyAsksWithTheChain: backup's first connection to the hook,
// before the session read anything, is asked about as ever and allowed
// once. After the notes and the page, the same connection is asked about
// again, with the chain; denied, the server gets 403 with the chain and
// the command, nothing reaches the hook, and the call's record says the
// guard's decision with the chain. Another app's session, which read
// nothing, goes on under the answer given before.
func TestGuardProxyAsksWithTheChain(t *testing.T) {
	t.Parallel()
	pr := newProxyRig(t, true)
	c := pr.httpClient("claude-code")

	pr.answers <- egress.AllowOnce
	if got := pr.backup(c, pr.hook, "hello"); got != "200 OK" {
		t.Fatalf("backup before reading anything: %q", got)
	}
	if q := pr.question(); q.Server != "store" || q.Dest != hostOf(pr.hook) || q.Chain != "" {
		t.Errorf("the question before reading anything: %+v", q)
	}
	pr.wantPosted("hello")

	pr.readNotes(c)
	pr.fetchPage(c)
	pr.noQuestion() // the page's host is on web's list

	chain := pr.chainTo("Claude Code", pr.hook)
	pr.answers <- egress.Deny
	got := pr.backup(c, pr.hook, "income 84,000")
	q := pr.question()
	if q.Server != "store" || q.Dest != hostOf(pr.hook) || q.Chain != chain ||
		q.Message() != chain+" Allow store to reach "+hostOf(pr.hook)+"?" {
		t.Errorf("the question after the notes and the page: %+v\n%s\nwant the chain %s", q, q.Message(), chain)
	}
	if !strings.HasPrefix(got, "403 ") || !strings.Contains(got, "you denied it") || !strings.Contains(got, chain) ||
		!strings.Contains(got, "mcptray sandbox allow store --host "+hostOf(pr.hook)) {
		t.Errorf("denied with the chain, the server got %q", got)
	}
	pr.nothingPosted()
	if e := pr.lastBackup(); e.Decision != activity.GuardDeclined || e.Reason != chain || e.App != "Claude Code" {
		t.Errorf("the record's row of the denied backup: %+v", e)
	}

	// Another app's session read nothing: the answer given before holds.
	other := pr.httpClient("cursor-vscode")
	if got := pr.backup(other, pr.hook, "hello again"); got != "200 OK" {
		t.Errorf("another session's backup: %q", got)
	}
	pr.noQuestion()
	pr.wantPosted("hello again")
	if e := pr.lastBackup(); e.Decision != activity.Allowed || e.Reason != "" {
		t.Errorf("the record's row of the other session's backup: %+v", e)
	}
}

// TestGuardProxyRefusesWithoutWindow: with no window, backup's connection
// during the session that read the notes and the page is refused with
// the chain and the command; in block mode, one to another host is
// refused without asking, pointing at mcptray guard ask. Each decision is
// in the call's record with its chain.
func TestGuardProxyRefusesWithoutWindow(t *testing.T) {
	t.Parallel()
	pr := newProxyRig(t, false)
	c := pr.httpClient("claude-code")
	pr.readNotes(c)
	pr.fetchPage(c)

	got := pr.backup(c, pr.hook, "income 84,000")
	chain := pr.chainTo("Claude Code", pr.hook)
	if !strings.HasPrefix(got, "403 ") || !strings.Contains(got, "there is no mcptray window to ask you in") ||
		!strings.Contains(got, chain) || !strings.Contains(got, "mcptray sandbox allow store --host "+hostOf(pr.hook)) {
		t.Errorf("with no window, the server got %q", got)
	}
	pr.nothingPosted()
	if e := pr.lastBackup(); e.Decision != activity.GuardNoWindow || e.Reason != chain {
		t.Errorf("the record's row with no window: %+v", e)
	}

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := pr.svc.SetGuardMode(ctx, service.GuardBlock); err != nil {
		t.Fatal(err)
	}
	got = pr.backup(c, pr.hook2, "income 84,000")
	chain = pr.chainTo("Claude Code", pr.hook2)
	if !strings.HasPrefix(got, "403 ") || !strings.Contains(got, "mcptray guard ask") || !strings.Contains(got, chain) {
		t.Errorf("in block mode, the server got %q", got)
	}
	pr.nothingPosted()
	if e := pr.lastBackup(); e.Decision != activity.GuardBlocked || e.Reason != chain {
		t.Errorf("the record's row in block mode: %+v", e)
	}

	// The refusals are in store's detail, with the chain.
	snap, err := pr.svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sv, _ := snap.Find("store")
	if sv.Sandbox == nil || len(sv.Sandbox.Network) != 2 || sv.Sandbox.Network[1].Chain != chain {
		t.Errorf("store's refusals: %+v", sv.Sandbox)
	}
}

// hostOf is a URL's host and port.
func hostOf(url string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "http://"), "/")
	return host
}

// ownIPv4 is an IPv4 address of this computer other than loopback; the
// test is skipped on a computer with none.
func ownIPv4(t *testing.T) string {
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

// within waits for a value from ch, failing the test after deadline.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("no %s within %s", what, deadline)
		panic("unreachable")
	}
}
