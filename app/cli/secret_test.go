package cli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/test/mcpserver"
)

// TestSecretHeader: a header given to add --secret-header is read from
// stdin, kept in the keychain, and reaches the remote server on every
// request; the config holds only the reference, and no file the value.
func TestSecretHeader(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	target, err := url.Parse(serveTest(t, mcpserver.Options{Name: "remote"}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	const value = "sk-Header-Secret-5a0e"
	u := front.URL + target.Path
	if code, out, errOut := h.runIn(value+"\n", "add", "r", "--url", u, "--secret-header", "X-Api-Key"); code != 0 || strings.Contains(out+errOut, value) {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	if got := mustJSON(t, h.userEntries()["r"]["headers"]); got != `{"X-Api-Key":"${secret:X_API_KEY}"}` {
		t.Errorf("config headers = %s", got)
	}
	if out := h.must("tools", "r"); !strings.Contains(out, "echo") {
		t.Errorf("tools r:\n%s", out)
	}
	mu.Lock()
	if len(seen) == 0 {
		t.Error("the server was not reached")
	}
	for _, v := range seen {
		if v != value {
			t.Errorf("a request carried X-Api-Key %q, want the secret", v)
		}
	}
	mu.Unlock()
	if files := filesHolding(t, h.dir, value); len(files) > 0 {
		t.Errorf("the secret is in %q", files)
	}
	if out := h.must("secret", "list", "r"); out != "X_API_KEY\tset\n" {
		t.Errorf("secret list = %q", out)
	}

	code, out, errOut := h.run("add", "x", "--url", u, "--secret-header", "Authorization: Bearer pasted-token")
	if code != 2 || strings.Contains(out+errOut, "pasted-token") || !strings.Contains(errOut, "takes a name only") {
		t.Errorf("--secret-header with a value: %d %q %q", code, out, errOut)
	}
	h.fails(2, "--secret-header and --transport are for remote servers", "add", "x", "--secret-header", "K", "--", "true")
	h.fails(2, "both as --header and as --secret-header", "add", "x", "--url", u, "--header", "K=v", "--secret-header", "K")
}

// TestSecretMove: list points at the command; secret move keeps an
// imported server's plain-text key in the keychain and mcptray's config
// refers to it, and Claude Desktop's file is not touched.
func TestSecretMove(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const value = "ghp_PlainText-9f3e"
	claude := h.write(".config/Claude/claude_desktop_config.json", `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
		           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "`+value+`", "LOG_LEVEL": "info"}}}}`)
	before, _ := os.ReadFile(claude)
	if out := h.must("list"); !strings.Contains(out, "keep it in your keychain instead: mcptray secret move github") {
		t.Errorf("list does not say how to move the key:\n%s", out)
	}
	out := h.must("secret", "move", "github")
	for _, want := range []string{"Kept GITHUB_PERSONAL_ACCESS_TOKEN of github in your keychain", "~/.config/Claude/claude_desktop_config.json still holds it"} {
		if !strings.Contains(out, want) {
			t.Errorf("secret move says:\n%s\nwant %q", out, want)
		}
	}
	if after, _ := os.ReadFile(claude); string(after) != string(before) {
		t.Error("Claude Desktop's file changed")
	}
	if got := mustJSON(t, h.userEntries()["github"]["env"]); got != `{"GITHUB_PERSONAL_ACCESS_TOKEN":"${secret:GITHUB_PERSONAL_ACCESS_TOKEN}","LOG_LEVEL":"info"}` {
		t.Errorf("config env = %s", got)
	}
	if out := h.must("secret", "list", "github"); out != "GITHUB_PERSONAL_ACCESS_TOKEN\tset\n" {
		t.Errorf("secret list = %q", out)
	}
	if out := h.must("list"); strings.Contains(out, "holds a key in plain text") {
		t.Errorf("list still flags a key:\n%s", out)
	}
	for _, f := range filesHolding(t, h.dir, value) {
		if f != claude {
			t.Errorf("%s holds the key", f)
		}
	}
	h.fails(1, "holds no key in plain text", "secret", "move", "github")
	h.fails(2, "name one server", "secret", "move")
}
