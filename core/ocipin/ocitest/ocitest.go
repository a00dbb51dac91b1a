// Package ocitest serves a container registry on loopback for tests
// (go-containerregistry's own registry) and pushes images to it.
package ocitest

import (
	"io"
	"log"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is a registry served on 127.0.0.1 for one test.
type Registry struct {
	// Host is its host and port, as an image name starts:
	// "127.0.0.1:PORT".
	Host string

	mu sync.Mutex
	// user and pass, when set, are the credential it asks for.
	user, pass string
	// lie, when set, is the digest it says a tag's manifest has,
	// whatever it sends.
	lie string
}

// Start serves a registry until the test ends.
func Start(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		lie, user, pass := r.lie, r.user, r.pass
		r.mu.Unlock()
		if u, p, _ := req.BasicAuth(); user != "" && (u != user || p != pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="ocitest"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"who are you"}]}`, http.StatusUnauthorized)
			return
		}
		if lie != "" && (req.Method == http.MethodGet || req.Method == http.MethodHead) && strings.Contains(req.URL.Path, "/manifests/") {
			inner.ServeHTTP(&lying{ResponseWriter: w, digest: lie}, req)
			return
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	return r
}

// RequireAuth makes the registry answer only requests with the user
// name and password given, from now on, as a company's does.
func (r *Registry) RequireAuth(user, pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.user, r.pass = user, pass
}

// Lie makes the registry say digest is the digest of every manifest it
// sends from now on, in its Docker-Content-Digest header; "" stops it.
func (r *Registry) Lie(digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lie = digest
}

type lying struct {
	http.ResponseWriter
	digest string
}

func (l *lying) WriteHeader(code int) {
	l.Header().Set("Docker-Content-Digest", l.digest)
	l.ResponseWriter.WriteHeader(code)
}

// Built is when Push's image of seed says it was built: seed days after
// 2026-01-01.
func Built(seed int64) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(seed))
}

func rngSource(seed int64) rand.Source { return rand.NewSource(seed) }

// Push writes an image of one random layer (seeded by seed) with cfg as
// its configuration to repo:tag on the registry, and returns its digest.
func (r *Registry) Push(t testing.TB, repoTag string, seed int64, cfg v1.Config) string {
	t.Helper()
	img, err := random.Image(256, 1, random.WithSource(rngSource(seed)))
	if err != nil {
		t.Fatal(err)
	}
	img, err = mutate.Config(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: Built(seed)})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.NewTag(r.Host + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	auth := authn.Authenticator(authn.Anonymous)
	if r.user != "" {
		auth = &authn.Basic{Username: r.user, Password: r.pass}
	}
	r.mu.Unlock()
	if err := remote.Write(ref, img, remote.WithAuth(auth)); err != nil {
		t.Fatal(err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}
