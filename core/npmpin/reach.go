package npmpin

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// How mcptray reaches the registry npm uses, for the one request it makes
// itself (the attestations, attest.go): as npm would. npm's own CLI says
// the registry (a scope's first), the proxy (https-proxy, proxy, noproxy,
// then the proxy variables of npm's environment, as npm's agent reads
// them), the certificates to trust (cafile, ca: they replace the
// system's, as they do for npm) and strict-ssl (`npm config list
// --json`; npm reads them from its environment too, npm_config_registry
// and the like, and says them). The registry's credential npm does not
// give out (it is "protected"), so it is read where npm reads it: the
// //host/path/:_authToken (or :_auth, or :username and :_password, or
// :certfile and :keyfile, a client certificate) of the environment's
// npm_config_//host/path/:… variables, then of the project's, the
// person's and the global .npmrc, in that order, ${VAR} read from npm's
// environment. It is sent to that registry alone: not through a redirect
// to another host, and never logged.

// registryAccess is how to reach one registry.
type registryAccess struct {
	registry  *url.URL
	proxy     *url.URL // nil: none
	roots     *x509.CertPool
	insecure  bool   // strict-ssl=false
	authority string // the Authorization header's value; "" sends none
	// cert is the client certificate npm gives the registry (certfile,
	// keyfile); nil when none.
	cert *tls.Certificate
}

// npmConfig is what `npm config list --json` says, as far as it is read.
type npmConfig map[string]any

func (c npmConfig) str(key string) string {
	s, _ := c[key].(string)
	return strings.TrimSpace(s)
}

// list is a value that npm keeps as a list or a string.
func (c npmConfig) list(key string) []string {
	switch v := c[key].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// access is how npm, run in dir, reaches the registry of the package
// called name.
func (n *NPM) access(ctx context.Context, dir, name string) (registryAccess, error) {
	out, err := n.run(ctx, dir, "config", "list", "--json")
	if err != nil {
		return registryAccess{}, fmt.Errorf("reading npm's config: %w", err)
	}
	var c npmConfig
	if err := json.Unmarshal(out, &c); err != nil {
		return registryAccess{}, fmt.Errorf("reading npm's config: %w", err)
	}
	reg := c.str("registry")
	if scope, _, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(scope, "@") {
		if s := c.str(scope + ":registry"); s != "" {
			reg = s
		}
	}
	base, err := url.Parse(reg)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return registryAccess{}, fmt.Errorf("npm's registry %q is not a web address", sanitize.Line(reg))
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	a := registryAccess{registry: base, insecure: c["strict-ssl"] == false}
	if a.proxy, err = n.proxyFor(c, base); err != nil {
		return registryAccess{}, err
	}
	if a.roots, err = n.roots(c); err != nil {
		return registryAccess{}, err
	}
	auth := n.credential(dir, c, base)
	a.authority = auth.authority
	if a.cert, err = clientCert(auth); err != nil {
		return registryAccess{}, err
	}
	return a, nil
}

// proxyFor is the proxy npm uses for the registry reg: its config's, or
// its environment's (as npm's agent reads them), unless noproxy names
// reg's host.
func (n *NPM) proxyFor(c npmConfig, reg *url.URL) (*url.URL, error) {
	p := firstOf(c.str("https-proxy"), c.str("proxy")) // as npm-registry-fetch, for either scheme
	if p == "" && reg.Scheme == "https" {
		p = n.env("https_proxy")
	} else if p == "" {
		p = firstOf(n.env("https_proxy"), n.env("http_proxy"), n.env("proxy"))
	}
	noProxy := strings.Join(c.list("noproxy"), ",")
	if strings.Trim(noProxy, ", ") == "" {
		noProxy = n.env("no_proxy")
	}
	if p == "" || noProxyFor(reg.Hostname(), noProxy) {
		return nil, nil
	}
	u, err := url.Parse(p)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// Not said: a proxy's address may hold its password.
		return nil, errors.New("npm's proxy (https-proxy or proxy) is not an http:// or https:// address mcptray can use")
	}
	return u, nil
}

// noProxyFor reports whether host is one of noProxy's (a comma-separated
// list) or beneath one, as npm's agent matches them: by whole labels.
func noProxyFor(host, noProxy string) bool {
	hs := strings.Split(host, ".")
	for _, no := range strings.Split(noProxy, ",") {
		ns := strings.FieldsFunc(strings.TrimSpace(no), func(r rune) bool { return r == '.' })
		if len(ns) == 0 || len(ns) > len(hs) {
			continue
		}
		match := true
		for i := 1; i <= len(ns); i++ {
			if !strings.EqualFold(ns[len(ns)-i], hs[len(hs)-i]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// roots are the certificates npm trusts for its registry: cafile's, or
// ca's, instead of the system's; nil when neither is set (the system's).
func (n *NPM) roots(c npmConfig) (*x509.CertPool, error) {
	var pem []byte
	switch f := c.str("cafile"); {
	case f != "":
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // as npm: a cafile that is not there sets nothing
		}
		if err != nil {
			return nil, fmt.Errorf("reading npm's cafile: %w", err)
		}
		pem = data
	default:
		pem = []byte(strings.Join(c.list("ca"), "\n"))
	}
	if len(strings.TrimSpace(string(pem))) == 0 {
		return nil, nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("npm's cafile or ca holds no certificate mcptray can read")
	}
	return pool, nil
}

// regAuth is what npm gives a registry to say who asks: the
// Authorization header's value, and the files of a client certificate.
type regAuth struct {
	authority         string
	certfile, keyfile string
}

// credential is what npm sends to the registry reg: the token, the user
// and password, or the client certificate, that its config gives the
// registry's address or one above it, as npm walks up
// (//host/a/b/, //host/a/b, //host/a/, …, //host); none for another host.
// The config is the global, the person's and the project's .npmrc, then
// npm's environment (npm_config_//host/:_authToken, envconfig.go), each
// over the ones before, as npm reads them.
func (n *NPM) credential(dir string, c npmConfig, reg *url.URL) regAuth {
	files := []string{filepath.Join(dir, ".npmrc"), c.str("userconfig"), c.str("globalconfig")}
	keys := map[string]string{}
	for i := len(files) - 1; i >= 0; i-- { // the project's over the person's over the global
		if files[i] != "" {
			n.readRC(files[i], keys)
		}
	}
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	n.envConfig(env, keys) // over the files
	for nerf := "//" + reg.Host + reg.Path; len(nerf) > len("//"); nerf = upOne(nerf) {
		// The first key with a credential is the registry's; what it
		// gives, npm sends: a token or a login, and a certificate.
		var a regAuth
		if cf, kf := keys[nerf+":certfile"], keys[nerf+":keyfile"]; cf != "" && kf != "" {
			a.certfile, a.keyfile = cf, kf
		}
		u, p := keys[nerf+":username"], keys[nerf+":_password"]
		switch {
		case keys[nerf+":_authToken"] != "":
			a.authority = "Bearer " + keys[nerf+":_authToken"]
		case keys[nerf+":_auth"] != "":
			a.authority = "Basic " + keys[nerf+":_auth"]
		case u != "" && p != "":
			if pw, err := base64.StdEncoding.DecodeString(p); err == nil {
				a.authority = "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+string(pw)))
			}
		}
		if a != (regAuth{}) {
			return a
		}
	}
	return regAuth{}
}

// upOne is a registry's key one step up, as npm walks: what follows the
// last slash, or the slash itself (//host/a/ to //host/a to //host/).
func upOne(nerf string) string {
	if strings.HasSuffix(nerf, "/") {
		return nerf[:len(nerf)-1]
	}
	return nerf[:strings.LastIndex(nerf, "/")+1]
}

// clientCert reads the client certificate npm gives the registry, as npm
// does: its certfile's and keyfile's PEM.
func clientCert(auth regAuth) (*tls.Certificate, error) {
	if auth.certfile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(auth.certfile, auth.keyfile)
	if err != nil {
		// Not the files' paths: the config's words for them are said.
		// A file not read says why without its path (the PathError's
		// cause); one that is not a certificate or key says so itself.
		if cause := errors.Unwrap(err); cause != nil {
			err = cause
		}
		return nil, fmt.Errorf("reading the client certificate npm's config gives the registry (certfile, keyfile): %w", err)
	}
	return &cert, nil
}

// readRC adds the credentials of the .npmrc at path to keys: lines
// "//…:key = value", a value quoted or not, ${VAR} read from npm's
// environment. A file that cannot be read adds nothing.
func (n *NPM) readRC(path string, keys map[string]string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "//") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			if v[0] == '"' {
				if s, err := strconv.Unquote(v); err == nil {
					v = s
				}
			} else {
				v = v[1 : len(v)-1]
			}
		}
		keys[n.envReplace(k)] = n.envReplace(v)
	}
}

// envVar is ${NAME} or ${NAME?} in an .npmrc, as npm reads them.
var envVar = regexp.MustCompile(`\$\{([^${}?]+)(\?)?\}`)

// envReplace reads ${NAME} from npm's environment; one that is not set
// stays as written, and ${NAME?} becomes "".
func (n *NPM) envReplace(s string) string {
	return envVar.ReplaceAllStringFunc(s, func(m string) string {
		sub := envVar.FindStringSubmatch(m)
		if v, ok := n.lookup(sub[1]); ok {
			return v
		}
		if sub[2] == "?" {
			return ""
		}
		return m
	})
}

// lookup is a variable of npm's environment.
func (n *NPM) lookup(name string) (string, bool) {
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// env is a proxy variable of npm's environment, whatever its case, as
// npm's agent reads them.
func (n *NPM) env(lower string) string {
	env := n.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.ToLower(k) == lower && v != "" {
			return v
		}
	}
	return ""
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// client is an HTTP client that reaches a.registry as npm does, and
// sends its credential there alone.
func (a registryAccess) client() *http.Client {
	t := &http.Transport{ForceAttemptHTTP2: true}
	if d, ok := http.DefaultTransport.(*http.Transport); ok {
		t = d.Clone() // its timeouts
	}
	t.Proxy = nil
	if a.proxy != nil {
		t.Proxy = http.ProxyURL(a.proxy)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: a.roots, InsecureSkipVerify: a.insecure} //nolint:gosec // strict-ssl=false, as npm
	if a.cert != nil {
		t.TLSClientConfig.Certificates = []tls.Certificate{*a.cert}
	}
	return &http.Client{Transport: t, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("the registry redirected too many times")
		}
		if !a.owns(req.URL) {
			req.Header.Del("Authorization") // the credential is the registry's alone
		}
		return nil
	}}
}

// owns reports whether u is on the registry: its scheme, host and port,
// beneath its path.
func (a registryAccess) owns(u *url.URL) bool {
	return u.Scheme == a.registry.Scheme && strings.EqualFold(u.Host, a.registry.Host) && strings.HasPrefix(u.Path, a.registry.Path)
}

// request is a GET of u, with the registry's credential when u is on it.
func (a registryAccess) request(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if a.authority != "" && a.owns(req.URL) {
		req.Header.Set("Authorization", a.authority)
	}
	return req, nil
}
