package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/authserver"
)

// signInHome is a home with a remote server called "remote" behind a
// real authorization server, and a browser that signs in at once.
func signInHome(t *testing.T) (*home, *authserver.Servers) {
	t.Helper()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	h := newHome(t)
	browser, err := authserver.BrowserCommand(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.env["MCPTRAY_BROWSER"] = browser
	h.must("add", "remote", "--url", srv.MCPURL)
	return h, srv
}

// signedIn reports whether the keychain holds tokens for the server at u.
func signedIn(t *testing.T, h *home, u string) bool {
	t.Helper()
	m := oauth.New(oauth.Options{Store: h.store})
	ok, err := m.SignedIn(context.Background(), &config.Server{Name: "remote", Transport: config.HTTP, URL: u})
	if err != nil {
		t.Fatalf("reading the keychain: %v", err)
	}
	return ok
}

// checkPlain fails the test when a message shows Go's insides rather than
// plain words, or a secret the server issued.
func checkPlain(t *testing.T, msg string, srv *authserver.Servers) {
	t.Helper()
	for _, junk := range []string{"%!", "&{", "<nil>", "oauth2:", "panic", "goroutine"} {
		if strings.Contains(msg, junk) {
			t.Errorf("the message holds %q: %s", junk, msg)
		}
	}
	if srv == nil {
		return
	}
	for _, s := range srv.Secrets() {
		if strings.Contains(msg, s) {
			t.Errorf("the message holds a secret the server issued: %s", msg)
		}
	}
}

// TestLoginLogout: login keeps the sign-in in the keychain and calls use
// it without the browser; logout takes it out of the keychain, and the
// server needs a sign-in again.
func TestLoginLogout(t *testing.T) {
	t.Parallel()
	authserver.RequireSessionBus(t)
	h, srv := signInHome(t)
	t.Cleanup(func() { h.run("logout", "remote") })

	code, out, errOut := h.run("login", "remote")
	if code != 0 || out != "Signed in to remote.\n" || !strings.Contains(errOut, "Opening your browser to sign in to remote") {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !signedIn(t, h, srv.MCPURL) {
		t.Fatal("login kept no tokens in the keychain")
	}
	if out := h.must("call", "remote", "echo", `{"text":"hi"}`); !strings.Contains(out, "hi") {
		t.Errorf("call printed %q", out)
	}
	if rows := statusTable(t, h.must("status")); rows["remote"].state != "connected" {
		t.Errorf("signed in, remote is %+v", rows["remote"])
	}
	if n := srv.Stats().Authorizations; n != 1 {
		t.Errorf("%d sign-ins in the browser; the call should have used login's", n)
	}

	code, out, errOut = h.run("logout", "remote")
	if code != 0 || out != "Signed out of remote.\n" || errOut != "" {
		t.Fatalf("logout: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if signedIn(t, h, srv.MCPURL) {
		t.Fatal("the tokens are still in the keychain after logout")
	}
	_, status, _ := h.run("status")
	r := statusTable(t, status)["remote"]
	if r.state != "needs-auth" || !strings.Contains(r.err, "sign in") {
		t.Errorf("after logout remote is %+v; want needs-auth saying to sign in", r)
	}
	// Both are in the activity record, and no token the server issued is.
	decisions := trustDecisions(t, h)
	if !slices.Equal(decisions, []string{"sign-in remote", "sign-out remote"}) {
		t.Errorf("the activity record holds %q; want the sign-in and the sign-out", decisions)
	}
	files, _ := filepath.Glob(h.paths.ActivityFile() + "*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range srv.Secrets() {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds a secret the server issued", filepath.Base(f))
			}
		}
	}
	// Logging out twice is no error: there is nothing left to forget.
	h.must("logout", "remote")

	// A call now has to sign in again; the person declines.
	srv.SetRedirectError("access_denied", "")
	code, out, errOut = h.run("call", "remote", "echo", `{"text":"hi"}`)
	if code != 1 || out != "" || !strings.Contains(errOut, "Opening your browser to sign in to remote") ||
		!strings.Contains(errOut, "mcptray call: signing in to remote: sign-in was declined in the browser") {
		t.Errorf("call after logout: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	checkPlain(t, errOut, srv)
	if n := srv.Stats().Authorizations; n != 2 {
		t.Errorf("%d sign-ins in the browser; want the call to have asked for a second", n)
	}
}

// TestLoginRefused: login and logout only take remote servers that are
// configured (or given by URL), and say so in plain words.
func TestLoginRefused(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("local")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"login", "local"}, 1, "mcptray login: local runs on this computer; only remote servers sign in\n"},
		{[]string{"logout", "local"}, 1, "mcptray logout: local runs on this computer; only remote servers sign in\n"},
		{[]string{"login", "nosuch"}, 1, `mcptray login: there is no server called "nosuch"; mcptray list shows them all` + "\n"},
		{[]string{"logout", "nosuch"}, 1, `mcptray logout: there is no server called "nosuch"; mcptray list shows them all` + "\n"},
		{[]string{"login", service.BuiltinName}, 1, "mcptray login: " + service.BuiltinName + " is built into mcptray; only remote servers sign in\n"},
		{[]string{"login"}, 2, "mcptray login: name one server, or give its URL\n"},
		{[]string{"login", "a", "b"}, 2, "mcptray login: name one server, or give its URL\n"},
		{[]string{"logout"}, 2, "mcptray logout: name one server, or give its URL\n"},
	}
	for _, tt := range tests {
		code, out, errOut := h.run(tt.args...)
		if code != tt.code || out != "" || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("mcptray %s: exit %d\nstdout: %s\nstderr: %s\nwant exit %d and %q", strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.want)
		}
		checkPlain(t, errOut, nil)
	}
}

// TestLoginBadAnswer: when the browser comes back with an error, or with
// an answer that is not this sign-in's, login and call end with a clear
// message, nothing is kept, and the server stays in needs-auth. None of
// this reaches the keychain's contents, so it runs without one too.
func TestLoginBadAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		set  func(*authserver.Servers)
		want string
	}{
		{"declined", func(s *authserver.Servers) { s.SetRedirectError("access_denied", "the person said no") },
			"sign-in was declined in the browser"},
		{"server error", func(s *authserver.Servers) { s.SetRedirectError("server_error", "try again later") },
			"the authorization server ended the sign-in: try again later (server_error)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, srv := signInHome(t)
			tt.set(srv)
			for _, cmd := range [][]string{{"login", "remote"}, {"call", "remote", "echo"}} {
				code, out, errOut := h.run(cmd...)
				want := "mcptray " + cmd[0] + ": signing in to remote: " + tt.want + "\n"
				if code != 1 || out != "" || !strings.HasSuffix(errOut, want) {
					t.Errorf("mcptray %s: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 ending %q", strings.Join(cmd, " "), code, out, errOut, want)
				}
				checkPlain(t, errOut, srv)
			}
			if n := srv.Stats().Authorizations; n != 2 {
				t.Errorf("%d trips to the authorization server, want 2: each command signs in once, not again and again", n)
			}
			_, out, _ := h.run("status")
			r := statusTable(t, out)["remote"]
			if r.state != "needs-auth" || !strings.Contains(r.err, "sign in") {
				t.Errorf("remote is %+v; want needs-auth saying to sign in", r)
			}
			if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" && signedIn(t, h, srv.MCPURL) {
				t.Error("tokens were kept after a failed sign-in")
			}
		})
	}
}

// TestLoginHostileErrorText: the error and error_description that come
// back from the authorization server are the server's words, and a hostile
// server can put terminal escapes, a carriage return, a bidi override or a
// new line in them to rewrite what the person sees ("Signed in"). They
// must reach the terminal as one clean line.
func TestLoginHostileErrorText(t *testing.T) {
	t.Parallel()
	h, srv := signInHome(t)
	srv.SetRedirectError("server_error\x1b[31m", "\x1b]0;owned\x07\x1b[2K\rall good\u202e\nmcptray: Signed in to remote.")
	for _, cmd := range [][]string{{"login", "remote"}, {"call", "remote", "echo"}} {
		code, _, errOut := h.run(cmd...)
		last := strings.TrimSuffix(errOut, "\n")
		if i := strings.LastIndex(last, "\n"); i >= 0 {
			last = last[i+1:]
		}
		if code != 1 || strings.ContainsAny(errOut, "\x1b\x07\r\u202e") || !strings.HasPrefix(last, "mcptray "+cmd[0]+": signing in to remote:") {
			t.Errorf("mcptray %s: exit %d; stderr %q: want exit 1 and the server's words on the error's own line, without control characters", strings.Join(cmd, " "), code, errOut)
		}
	}
}

// TestRemoveForgetsSignIn: removing a remote server takes its sign-in out
// of the keychain, unless another configured server reaches the same URL.
func TestRemoveForgetsSignIn(t *testing.T) {
	t.Parallel()
	authserver.RequireSessionBus(t)
	h, srv := signInHome(t)
	h.must("login", "remote")
	h.must("add", "again", "--url", srv.MCPURL) // the same server under another name
	if !signedIn(t, h, srv.MCPURL) {
		t.Fatal("login stored no tokens")
	}
	h.must("remove", "remote")
	if !signedIn(t, h, srv.MCPURL) {
		t.Fatal("removing one of two names for a server dropped the sign-in both use")
	}
	h.must("remove", "again")
	if signedIn(t, h, srv.MCPURL) {
		t.Error("the sign-in of a removed server is still in the keychain")
	}
}

// TestRefusedTokenRefreshesFirst: when the server refuses a token mcptray
// still thought good, a refresh is tried before the browser.
func TestRefusedTokenRefreshesFirst(t *testing.T) {
	t.Parallel()
	authserver.RequireSessionBus(t)
	h, srv := signInHome(t)
	h.must("login", "remote")
	before := srv.Stats()
	srv.ExpireAccessTokens()
	if out := h.must("call", "remote", "echo", `{"text":"still me"}`); !strings.Contains(out, "still me") {
		t.Errorf("call after the token was refused: %q", out)
	}
	after := srv.Stats()
	if after.Authorizations != before.Authorizations {
		t.Errorf("the browser was sent to sign in again (%d authorizations, was %d); a refresh would do",
			after.Authorizations, before.Authorizations)
	}
	if after.Refreshes != before.Refreshes+1 || after.Reuses != 0 || after.Revoked != 0 {
		t.Errorf("stats = %+v, was %+v; want exactly one good refresh", after, before)
	}
}

// TestLoginIdentityProvider: with an identity provider in config.json,
// one sign-in there (login --idp, in the browser) lets a server set up for
// Cross-App Access sign in with no browser of its own. The in-repo
// authorization server plays both the identity provider and the server's
// authorization server.
func TestLoginIdentityProvider(t *testing.T) {
	t.Parallel()
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	srv.AddClient("mcptray-at-idp", "idp-secret")
	srv.AddClient("mcptray-at-mcp", "mcp-secret")
	h := newHome(t)
	browser, err := authserver.BrowserCommand(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.env["MCPTRAY_BROWSER"] = browser

	code, _, errOut := h.run("login", "--idp")
	if code != 1 || !strings.Contains(errOut, `no identity provider is set up: add "identityProvider"`) {
		t.Errorf("login --idp with none set up: exit %d, %q", code, errOut)
	}
	rel, _ := filepath.Rel(h.dir, h.paths.UserFile())
	h.write(rel, `{
		"identityProvider": {"issuer": "`+srv.Issuer+`", "clientId": "mcptray-at-idp", "clientSecret": "idp-secret"},
		"mcpServers": {"corp": {"url": "`+srv.MCPURL+`",
			"oauth": {"xaa": true, "clientId": "mcptray-at-mcp", "clientSecret": "mcp-secret"}}}
	}`)

	if out := h.must("login", "--idp"); !strings.Contains(out, "Signed in to your identity provider") {
		t.Errorf("login --idp printed %q", out)
	}
	if out := h.must("call", "corp", "echo", `{"text":"via the idp"}`); !strings.Contains(out, "via the idp") {
		t.Errorf("call printed %q", out)
	}
	st := srv.Stats()
	if st.Authorizations != 1 || st.TokenExchanges != 1 || st.JWTBearerGrants != 1 {
		t.Errorf("the servers saw %+v; want one browser sign-in (the identity provider's), one exchange, one JWT bearer grant", st)
	}
	h.must("logout", "--idp")
	decisions := trustDecisions(t, h)
	// The call's own sign-in to corp, through the identity provider, too.
	if want := []string{"sign-in " + srv.Issuer, "sign-in corp", "sign-out " + srv.Issuer}; !slices.Equal(decisions, want) {
		t.Errorf("the activity record holds %q, want %q", decisions, want)
	}
}

// TestLoginJWTBearer: a workload signs in with the JWT its platform gave
// it, read from a file, and calls use the token without a browser.
func TestLoginJWTBearer(t *testing.T) {
	t.Parallel()
	var srv *httptest.Server
	var mu sync.Mutex
	var grants []string
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "token_endpoint": srv.URL + "/token",
			"grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "token_endpoint_auth_methods_supported": []string{"none"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		grants = append(grants, r.Form.Get("grant_type")+" "+r.Form.Get("assertion")+" "+r.Form.Get("client_id"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"workload-access","token_type":"Bearer","expires_in":3600}`))
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h := newHome(t)
	h.must("add", "remote", "--url", srv.URL+"/mcp")
	jwtFile := h.write("workload.jwt", "the-workload-jwt\n")
	h.fails(2, "choose one of", "login", "--xaa", "--jwt-bearer-assertion-file", jwtFile, "remote")
	if out := h.must("login", "--jwt-bearer-assertion-file", jwtFile, "--client-id", "workload", "remote"); !strings.Contains(out, "Signed in") {
		t.Errorf("login said %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"urn:ietf:params:oauth:grant-type:jwt-bearer the-workload-jwt workload"}; !slices.Equal(grants, want) {
		t.Errorf("token requests %q; want %q", grants, want)
	}
	if !signedIn(t, h, srv.URL+"/mcp") {
		t.Error("no sign-in in the keychain after login")
	}
}

// TestCallSignInRecorded: a sign-in that mcptray call sets off itself, with
// no mcptray running, is in the activity record as login's is.
func TestCallSignInRecorded(t *testing.T) {
	t.Parallel()
	authserver.RequireSessionBus(t)
	h, _ := signInHome(t)
	t.Cleanup(func() { h.run("logout", "remote") })
	if out := h.must("call", "remote", "echo", `{"text":"hi"}`); !strings.Contains(out, "hi") {
		t.Fatalf("call printed %q", out)
	}
	decisions := trustDecisions(t, h)
	if !slices.Equal(decisions, []string{"sign-in remote"}) {
		t.Errorf("the activity record holds %q; want the call's sign-in", decisions)
	}
}

// trustDecisions are the activity record's rows, as "ACTION TARGET", by
// mcptray activity --json.
func trustDecisions(t *testing.T, h *home) []string {
	t.Helper()
	var decisions []string
	for _, line := range strings.Split(strings.TrimSpace(h.must("activity", "--json")), "\n") {
		var e activity.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("activity --json: %q: %v", line, err)
		}
		decisions = append(decisions, string(e.Action)+" "+e.Target)
	}
	return decisions
}
