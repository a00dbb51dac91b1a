package npmtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Attesting is a registry that serves attestations as npm's does, at
// /-/npm/v1/attestations/NAME@VERSION: a small HTTP server on loopback in
// front of verdaccio, which serves none, that forwards everything else to
// it. A version it holds no attestation for is not found there, as one
// published by hand is on npm's registry.
type Attesting struct {
	// URL is its address, with a trailing slash.
	URL string
	// Home is a home folder whose .npmrc names it.
	Home string
	// Env is an environment for npm with Home as HOME.
	Env []string

	mu     sync.Mutex
	answer map[string][]byte // by NAME@VERSION
	asked  []string
}

// attestationsPath is where npm's registry keeps a version's attestations.
const attestationsPath = "/-/npm/v1/attestations/"

// Attest starts an attesting registry in front of r.
func (r *Registry) Attest(t *testing.T) *Attesting {
	t.Helper()
	back, err := url.Parse(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(back)
	a := &Attesting{answer: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rest, ok := strings.CutPrefix(req.URL.EscapedPath(), attestationsPath)
		if !ok {
			proxy.ServeHTTP(w, req)
			return
		}
		version, err := url.PathUnescape(rest)
		if err != nil {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		a.asked = append(a.asked, version)
		raw, have := a.answer[version]
		a.mu.Unlock()
		if !have {
			http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(raw)
	}))
	t.Cleanup(srv.Close)
	a.URL = srv.URL + "/"
	a.Home = filepath.Join(t.TempDir(), "home")
	write(t, filepath.Join(a.Home, ".npmrc"), "registry="+a.URL+"\n")
	a.Env = append(os.Environ(), "HOME="+a.Home)
	return a
}

// Set makes the registry answer raw for version ("name@1.0.1"); nil
// takes its answer away.
func (a *Attesting) Set(version string, raw []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if raw == nil {
		delete(a.answer, version)
		return
	}
	a.answer[version] = raw
}

// Asked is the versions whose attestations were asked for, in order.
func (a *Attesting) Asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// PublishTarball publishes a package's tarball as it is, byte for byte:
// its integrity is that file's.
func (r *Registry) PublishTarball(t *testing.T, tgz string) {
	t.Helper()
	abs, err := filepath.Abs(tgz)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command("npm", "publish", abs, "--userconfig", r.publishRC, "--cache", filepath.Join(home, "cache"), "--ignore-scripts")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm publish %s: %v\n%s", filepath.Base(tgz), err, out)
	}
}

// Attestation is an attestations answer as npm's registry gives for a
// version its CI published with provenance: one SLSA provenance v1
// statement of name@version, whose subject is the tarball integrity
// ("sha512-…") names, built by repo's GitHub workflow at commit, in a
// DSSE envelope signed by a certificate that names repo and commit as
// Fulcio's do. The certificate is made here, not by Sigstore: what
// mcptray's offline check cannot tell apart, and never calls verified.
func Attestation(t *testing.T, name, version, integrity, repo, commit string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ext := func(oid asn1.ObjectIdentifier, s string) pkix.Extension {
		v, err := asn1.MarshalWithParams(s, "utf8")
		if err != nil {
			t.Fatal(err)
		}
		return pkix.Extension{Id: oid, Value: v}
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour),
		Subject: pkix.Name{Organization: []string{"sigstore.dev"}},
		ExtraExtensions: []pkix.Extension{
			ext(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 12}, repo),
			ext(asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 13}, commit)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	_, sum, _ := strings.Cut(integrity, "-")
	digest, err := base64.StdEncoding.DecodeString(sum)
	if err != nil {
		t.Fatal(err)
	}
	const (
		statement  = "https://in-toto.io/Statement/v1"
		provenance = "https://slsa.dev/provenance/v1"
		workflow   = "https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1"
		payload    = "application/vnd.in-toto+json"
	)
	purl := "pkg:npm/" + strings.ReplaceAll(url.PathEscape(name), "%2F", "/") + "@" + version
	stmt := fmt.Sprintf(`{"_type":%q,"subject":[{"name":%q,"digest":{"sha512":"%x"}}],"predicateType":%q,"predicate":{"buildDefinition":{"buildType":%q,"externalParameters":{"workflow":{"ref":"refs/tags/v%s","repository":%q,"path":".github/workflows/release.yml"}},"resolvedDependencies":[{"uri":"git+%s","digest":{"gitCommit":%q}}]},"runDetails":{"metadata":{}}}}`,
		statement, purl, digest, provenance, workflow, version, repo, repo, commit)
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(payload), payload, len(stmt), stmt)
	h := sha256.Sum256(pae)
	sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(map[string]any{"attestations": []any{map[string]any{
		"predicateType": provenance,
		"bundle": map[string]any{
			"verificationMaterial": map[string]any{"certificate": map[string]any{"rawBytes": der}},
			"dsseEnvelope":         map[string]any{"payload": []byte(stmt), "payloadType": payload, "signatures": []any{map[string]any{"sig": sig}}},
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Integrity is the integrity ("sha512-…") the registry gives name@version.
func (a *Attesting) Integrity(t *testing.T, name, version string) string {
	t.Helper()
	resp, err := http.Get(a.URL + url.PathEscape(name))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Versions map[string]struct {
			Dist struct {
				Integrity string `json:"integrity"`
			} `json:"dist"`
		} `json:"versions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	i := doc.Versions[version].Dist.Integrity
	if i == "" {
		t.Fatalf("the registry gives %s@%s no integrity", name, version)
	}
	return i
}
