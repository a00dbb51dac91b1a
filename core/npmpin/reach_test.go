package npmpin

import (
	"bytes"
	"encoding/pem"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// seen records what a server was asked: the path and the Authorization
// of each request, or the host of each CONNECT.
type seen struct {
	mu  sync.Mutex
	got []string
}

func (s *seen) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, v)
}

func (s *seen) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// connectProxy is an HTTP proxy on loopback that tunnels CONNECT, as a
// company's proxy does, and records the hosts it was asked for.
func connectProxy(t *testing.T) (*httptest.Server, *seen) {
	t.Helper()
	asked := &seen{}
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		asked.add(r.Host)
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { io.Copy(up, buf); up.Close() }()
		io.Copy(conn, up)
		conn.Close()
	}))
	t.Cleanup(p.Close)
	return p, asked
}

// tlsRegistry is a registry on loopback, over TLS with a certificate of
// its own, that serves answer at the attestations' path to the holder
// of token, and records each request's path and Authorization.
func tlsRegistry(t *testing.T, token string, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *seen) {
	t.Helper()
	asked := &seen{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.add(r.URL.Path + " " + r.Header.Get("Authorization"))
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "login", http.StatusUnauthorized)
			return
		}
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, asked
}

// caFile writes srv's certificate where a cafile names it.
func caFile(t *testing.T, srvs ...*httptest.Server) string {
	t.Helper()
	var b bytes.Buffer
	for _, s := range srvs {
		pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	}
	path := filepath.Join(t.TempDir(), "company-ca.pem")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// npmrcHome is a home whose ~/.npmrc says rc.
func npmrcHome(t *testing.T, rc string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestOriginThroughNpmConfig: the attestations are asked for as npm asks
// its registry: through the proxy npm's config names (a CONNECT proxy on
// loopback), trusting the certificate of its cafile (a company's own
// CA), with the registry's token from the .npmrc (${VAR} read from npm's
// environment), and the token appears in no log.
func TestOriginThroughNpmConfig(t *testing.T) {
	t.Parallel()
	const token = "tok-3f9a1c"
	reg, asked := tlsRegistry(t, token, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/-/npm/v1/attestations/gundam-visor@1.0.1" {
			w.Write(recorded(t))
			return
		}
		http.NotFound(w, r)
	})
	proxy, tunnels := connectProxy(t)
	host := strings.TrimPrefix(reg.URL, "https://")
	home := npmrcHome(t, "registry="+reg.URL+"/\nhttps-proxy="+proxy.URL+"/\ncafile="+caFile(t, reg)+"\n//"+host+"/:_authToken=${COMPANY_NPM_TOKEN}\n")
	var logs bytes.Buffer
	n := &NPM{Env: append(os.Environ(), "HOME="+home, "COMPANY_NPM_TOKEN="+token), Cache: filepath.Join(t.TempDir(), "cache"),
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	p := Pin{Spec: Spec{Package: "gundam-visor"}, Lock: Lock{Root: "gundam-visor", Packages: []Package{pinnedGundam(t)}}, Dir: t.TempDir()}
	o := n.Origin(t.Context(), p)
	if !o.CI() || o.Provenance.Repository != "https://github.com/ramonpetgrave64/gundam-visor" {
		t.Errorf("the origin through npm's config: %+v", o)
	}
	if got := tunnels.all(); !slices.Contains(got, host) {
		t.Errorf("npm's proxy was asked for %v, not the registry %s", got, host)
	}
	if got := asked.all(); len(got) != 1 || got[0] != "/-/npm/v1/attestations/gundam-visor@1.0.1 Bearer "+token {
		t.Errorf("the registry was asked %q", got)
	}
	if strings.Contains(logs.String(), token) {
		t.Errorf("the token is in the log:\n%s", logs.String())
	}
}

// TestOriginTokenStaysWithItsRegistry: the token npm's config gives one
// registry is not sent to another: not to the registry of another scope,
// and not to a host the registry redirects to (another port of the same
// address is another host).
func TestOriginTokenStaysWithItsRegistry(t *testing.T) {
	t.Parallel()
	const token = "tok-77be20"
	elsewhere, elsewhereAsked := tlsRegistry(t, "", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	reg, asked := tlsRegistry(t, token, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	})
	host := strings.TrimPrefix(reg.URL, "https://")
	home := npmrcHome(t, "registry="+reg.URL+"/\n@other:registry="+elsewhere.URL+"/\ncafile="+caFile(t, reg, elsewhere)+"\n//"+host+"/:_authToken="+token+"\n")
	n := &NPM{Env: append(os.Environ(), "HOME="+home), Cache: filepath.Join(t.TempDir(), "cache")}

	p := Pin{Spec: Spec{Package: "gundam-visor"}, Lock: Lock{Root: "gundam-visor", Packages: []Package{pinnedGundam(t)}}, Dir: t.TempDir()}
	if o := n.Origin(t.Context(), p); o.Unchecked != "" || o.Refused != "" {
		t.Errorf("the origin through a redirect: %+v", o)
	}
	if got := asked.all(); len(got) != 1 || !strings.HasSuffix(got[0], "Bearer "+token) {
		t.Errorf("its registry was asked %q", got)
	}
	other := pinnedGundam(t)
	other.Name, other.Path = "@other/visor", "node_modules/@other/visor"
	q := Pin{Spec: Spec{Package: "@other/visor"}, Lock: Lock{Root: "@other/visor", Packages: []Package{other}}, Dir: t.TempDir()}
	if o := n.Origin(t.Context(), q); o.Unchecked != "" {
		t.Errorf("the origin from the other scope's registry: %+v", o)
	}
	for _, got := range elsewhereAsked.all() {
		if strings.Contains(got, token) || strings.Contains(got, "Bearer") {
			t.Errorf("another registry was sent the token: %q", got)
		}
	}
	if got := elsewhereAsked.all(); len(got) != 2 {
		t.Errorf("the other registry was asked %q, want the redirect and the scope's request", got)
	}
}

// TestProxyAsNpm: the proxy is npm's https-proxy, then proxy, for either
// scheme, then its environment's (https_proxy alone for an https
// registry), and none for a host noproxy names by whole labels.
func TestProxyAsNpm(t *testing.T) {
	t.Parallel()
	reg, _ := url.Parse("https://npm.corp.example/")
	plain, _ := url.Parse("http://npm.corp.example/")
	for _, c := range []struct {
		conf npmConfig
		env  []string
		reg  *url.URL
		want string
	}{
		{npmConfig{"https-proxy": "http://a:1", "proxy": "http://b:2"}, nil, reg, "http://a:1"},
		{npmConfig{"proxy": "http://b:2"}, nil, reg, "http://b:2"},
		{npmConfig{"https-proxy": "http://a:1"}, nil, plain, "http://a:1"},
		{npmConfig{}, []string{"HTTPS_PROXY=http://e:3", "HTTP_PROXY=http://f:4"}, reg, "http://e:3"},
		{npmConfig{}, []string{"HTTP_PROXY=http://f:4"}, reg, ""},
		{npmConfig{}, []string{"http_proxy=http://f:4"}, plain, "http://f:4"},
		{npmConfig{"proxy": "http://b:2", "noproxy": []any{"corp.example"}}, nil, reg, ""},
		{npmConfig{"proxy": "http://b:2", "noproxy": []any{"rp.example"}}, nil, reg, "http://b:2"},
		{npmConfig{"proxy": "http://b:2"}, []string{"NO_PROXY=npm.corp.example"}, reg, ""},
	} {
		n := &NPM{Env: c.env}
		if c.env == nil {
			n.Env = []string{}
		}
		got, err := n.proxyFor(c.conf, c.reg)
		if err != nil {
			t.Errorf("%v %v: %v", c.conf, c.env, err)
			continue
		}
		said := ""
		if got != nil {
			said = got.String()
		}
		if said != c.want {
			t.Errorf("%v %v for %s: %q, want %q", c.conf, c.env, c.reg, said, c.want)
		}
	}
}

// TestCredentialFromNpmrc: the credential is the one npm's .npmrc files
// give the registry's address or one above it, the project's first, and
// none for another host.
func TestCredentialFromNpmrc(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".npmrc")
	os.WriteFile(user, []byte("//npm.corp.example/:_authToken=user-token\n//other.example/:_authToken=other\n; //npm.corp.example/:_authToken=commented\n"), 0o600)
	os.WriteFile(filepath.Join(dir, ".npmrc"), []byte("//npm.corp.example/team/:_authToken = \"${TEAM_TOKEN}\"\n//other.example/:_authToken=project-other\n"), 0o600)
	n := &NPM{Env: []string{"TEAM_TOKEN=team-token"}}
	c := npmConfig{"userconfig": user}
	for reg, want := range map[string]string{
		"https://npm.corp.example/":          "Bearer user-token",
		"https://npm.corp.example/team/":     "Bearer team-token",
		"https://npm.corp.example/team/sub/": "Bearer team-token",
		"https://npm.corp.example:8443/":     "",
		"https://corp.example/":              "",
		"https://other.example/":             "Bearer project-other",
	} {
		u, _ := url.Parse(reg)
		if got := n.credential(dir, c, u).authority; got != want {
			t.Errorf("the credential for %s: %q, want %q", reg, got, want)
		}
	}
}
