package npmpin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// clientCertFiles writes a client certificate and its key where npm's
// certfile and keyfile name them, and returns the pool that trusts it.
func clientCertFiles(t *testing.T) (certfile, keyfile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "ci-runner"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certfile, keyfile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(certfile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyfile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certfile, keyfile, pool
}

// TestOriginThroughNpmEnv: npm's config given by its environment alone,
// no .npmrc saying anything (npm_config_registry, NPM_CONFIG_CAFILE, the
// registry's npm_config_//host/:_authToken and its :certfile and
// :keyfile), reaches the registry npm reaches, with the token and the
// client certificate npm would give it; a registry that asks for both
// answers.
func TestOriginThroughNpmEnv(t *testing.T) {
	t.Parallel()
	const token = "tok-env-51c0"
	certfile, keyfile, clients := clientCertFiles(t)
	asked := &seen{}
	reg := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.add(r.URL.Path + " " + r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "login", http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/-/npm/v1/attestations/gundam-visor@1.0.1" {
			w.Write(recorded(t))
			return
		}
		http.NotFound(w, r)
	}))
	reg.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	reg.StartTLS()
	t.Cleanup(reg.Close)
	host := strings.TrimPrefix(reg.URL, "https://")
	home := npmrcHome(t, "; nothing here\n")
	n := &NPM{Env: append(os.Environ(), "HOME="+home, "NPM_TOKEN="+token,
		"npm_config_registry="+reg.URL+"/", "NPM_CONFIG_CAFILE="+caFile(t, reg),
		"npm_config_//"+host+"/:_authToken=${NPM_TOKEN}",
		"npm_config_//"+host+"/:certfile="+certfile, "npm_config_//"+host+"/:keyfile="+keyfile,
	), Cache: filepath.Join(t.TempDir(), "cache")}
	p := Pin{Spec: Spec{Package: "gundam-visor"}, Lock: Lock{Root: "gundam-visor", Packages: []Package{pinnedGundam(t)}}, Dir: t.TempDir()}
	if o := n.Origin(t.Context(), p); !o.CI() {
		t.Errorf("the origin through npm's environment: %+v", o)
	}
	if got := asked.all(); len(got) != 1 || got[0] != "/-/npm/v1/attestations/gundam-visor@1.0.1 Bearer "+token {
		t.Errorf("the registry was asked %q", got)
	}
}

// TestCredentialFromEnv: a registry's key in npm's environment is read
// over the .npmrc files' (whatever the case of npm_config_), ${VAR} read;
// a client certificate is the registry's whose key names it; the walk up
// is npm's (//host/a/b/, //host/a/b, //host/a/).
func TestCredentialFromEnv(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	user := filepath.Join(home, ".npmrc")
	if err := os.WriteFile(user, []byte("//npm.corp.example/:_authToken=user-token\n//npm.corp.example/team:_authToken=team-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := &NPM{Env: []string{"ENV_TOKEN=env-token",
		"NPM_CONFIG_//npm.corp.example/:_authToken=${ENV_TOKEN}",
		"npm_config_//certs.example/:certfile=/c.pem", "npm_config_//certs.example/:keyfile=/k.pem",
		"npm_config_//half.example/:certfile=/c.pem",
		"npm_config_//empty.example/:_authToken=",
	}}
	c := npmConfig{"userconfig": user}
	for reg, want := range map[string]regAuth{
		"https://npm.corp.example/":          {authority: "Bearer env-token"},
		"https://npm.corp.example/team/sub/": {authority: "Bearer team-token"},
		"https://certs.example/":             {certfile: "/c.pem", keyfile: "/k.pem"},
		"https://half.example/":              {},
		"https://empty.example/":             {},
	} {
		u, _ := url.Parse(reg)
		if got := n.credential(t.TempDir(), c, u); got != want {
			t.Errorf("for %s: %+v, want %+v", reg, got, want)
		}
	}
}

// TestServerEnvTakesOnlyTheRegistrysWay: of a server config's env, npm is
// given the variables that name its registry and that registry's own
// keys, and no other: a hostile config's npm_config_git (a program npm
// runs for a git dependency, outside any sandbox), userconfig, cache,
// script-shell or node-options stays out, and so do a proxy, strict-ssl
// and a cafile, with which it would read the token the person's .npmrc
// gives their registry on its way; the words name them.
func TestServerEnvTakesOnlyTheRegistrysWay(t *testing.T) {
	t.Parallel()
	keep, left := ServerEnv(map[string]string{
		"npm_config_registry":                       "https://npm.corp.example/",
		"NPM_CONFIG_@team:registry":                 "https://team.example/",
		"npm_config_//npm.corp.example/:_authToken": "t",
		"npm_config_//npm.corp.example/:certfile":   "/c.pem",
		"npm_config_strict_ssl":                     "false",
		"NPM_CONFIG_CAFILE":                         "/tmp/attacker-ca.pem",
		"NPM_CONFIG_HTTPS_PROXY":                    "http://proxy:3128",
		"npm_config_git":                            "/tmp/evil",
		"NPM_CONFIG_USERCONFIG":                     "/tmp/planted/.npmrc",
		"npm_config_cache":                          "/tmp/cache",
		"npm_config_script_shell":                   "/tmp/evil",
		"npm_config_node_options":                   "--require /tmp/evil.js",
		"npm_config_//npm.corp.example/:git":        "/tmp/evil",
		"NODE_OPTIONS":                              "--require /tmp/evil.js",
		"API_KEY":                                   "secret",
	})
	wantKeep := []string{
		"NPM_CONFIG_@team:registry=https://team.example/",
		"npm_config_//npm.corp.example/:_authToken=t", "npm_config_//npm.corp.example/:certfile=/c.pem",
		"npm_config_registry=https://npm.corp.example/",
	}
	slices.Sort(wantKeep)
	wantLeft := []string{"NPM_CONFIG_CAFILE", "NPM_CONFIG_HTTPS_PROXY", "NPM_CONFIG_USERCONFIG", "npm_config_//npm.corp.example/:git",
		"npm_config_cache", "npm_config_git", "npm_config_node_options", "npm_config_script_shell", "npm_config_strict_ssl"}
	slices.Sort(wantLeft)
	if !slices.Equal(keep, wantKeep) || !slices.Equal(left, wantLeft) {
		t.Errorf("kept %q\nleft %q\nwant %q\nand %q", keep, left, wantKeep, wantLeft)
	}
	if !SameKey("NPM_CONFIG_STRICT_SSL", "npm_config_strict-ssl") || SameKey("npm_config_//a/:_auth", "NPM_CONFIG_//A/:_auth") {
		t.Error("SameKey does not read the keys as npm does")
	}
}

// TestClientCertSaysWhyInWords: a certfile that is not there, or not a
// certificate, says why in words, without the file's path and without a
// formatting error in their place.
func TestClientCertSaysWhyInWords(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "client.crt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ certfile, want string }{
		{filepath.Join(dir, "missing.crt"), "no such file"},
		{notPEM, "PEM"},
	} {
		_, err := clientCert(regAuth{certfile: c.certfile, keyfile: c.certfile})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "%!") || strings.Contains(err.Error(), dir) {
			t.Errorf("certfile %s: %v, want words with %q and no path", filepath.Base(c.certfile), err, c.want)
		}
	}
}
