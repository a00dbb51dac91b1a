package ocipin_test

import (
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/mcptray/mcptray/core/ocipin"
	"github.com/mcptray/mcptray/core/ocipin/ocitest"
)

func TestDetectFindsTheImage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		at   int // -1: not detected
	}{
		{[]string{"run", "-i", "--rm", "mcp/time"}, 3},
		{[]string{"run", "-i", "--rm", "-e", "TOKEN", "-v", "/a:/b", "--name", "x", "--network", "none", "-p", "80:80", "ghcr.io/o/srv:1.2", "--flag", "v"}, 13},
		{[]string{"run", "-it", "--env=A=1", "-eB=2", "--rm=true", "img:tag", "-e", "x"}, 5},
		{[]string{"--context", "work", "container", "run", "-i", "img"}, 5},
		{[]string{"run", "-i", "--", "img", "arg"}, 3},
		{[]string{"run", "-i", "img@sha256:" + strings.Repeat("a", 64)}, -1},
		{[]string{"run", "-i", "img:1@sha256:" + strings.Repeat("a", 64)}, -1},
		{[]string{"run", "-Z", "img"}, -1},
		{[]string{"run", "-i", "sha256:" + strings.Repeat("b", 64)}, -1},
		{[]string{"run", "-i", strings.Repeat("b", 64)}, -1},
		{[]string{"ps"}, -1},
		{[]string{"run", "-i", "--rm"}, -1},
	} {
		s, ok := ocipin.Detect("/usr/bin/docker", c.args)
		if (c.at < 0) != !ok || (ok && s.At != c.at) {
			t.Errorf("Detect(%q) = %+v, %v; want the image at %d", c.args, s, ok, c.at)
		}
	}
	if _, ok := ocipin.Detect("npx", []string{"run", "img"}); ok {
		t.Error("npx read as docker")
	}
	s, _ := ocipin.Detect("docker", []string{"run", "-i", "--rm", "127.0.0.1:5000/team/srv:1", "-x"})
	got := s.Pinned([]string{"run", "-i", "--rm", "127.0.0.1:5000/team/srv:1", "-x"}, "sha256:abc")
	if want := []string{"run", "-i", "--rm", "127.0.0.1:5000/team/srv@sha256:abc", "-x"}; !slices.Equal(got, want) {
		t.Errorf("pinned: %q, want %q", got, want)
	}
}

// TestResolveAndCompare: the tag's digest is the image pushed at it; once
// another is pushed at the same tag, it resolves to that one, and the
// review names the changed entrypoint and environment, the layers, and
// says the code is not compared.
func TestResolveAndCompare(t *testing.T) {
	t.Parallel()
	r := ocitest.Start(t)
	d1 := r.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}, Env: []string{"MODE=1"}, User: "app"})
	spec, ok := ocipin.Detect("docker", []string{"run", "-i", r.Host + "/echo"})
	if !ok {
		t.Fatal("not detected")
	}
	reg := ocipin.Registry{Keychain: authn.NewMultiKeychain()}
	v1img, err := reg.Resolve(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if v1img.Digest != d1 || v1img.Config.User != "app" || !v1img.Created.Equal(ocitest.Built(1)) || len(v1img.Layers) != 1 {
		t.Fatalf("resolved %+v, want %s", v1img, d1)
	}
	if w := v1img.Words(); !strings.Contains(w, "image "+r.Host+"/echo:latest pinned at "+d1[:19]+"…, built 2026-01-02") {
		t.Errorf("words: %q", w)
	}
	d2 := r.Push(t, "echo:latest", 2, v1.Config{Entrypoint: []string{"/srv", "--send"}, Env: []string{"MODE=1", "SEND_TO=collect.example.net"}, User: "app"})
	v2img, err := reg.Resolve(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if v2img.Digest != d2 || d2 == d1 {
		t.Fatalf("after v2 the tag resolves to %s, want %s", v2img.Digest, d2)
	}
	w := ocipin.Compare(v1img, v2img).Words()
	for _, want := range []string{
		`entrypoint: ["/srv"] becomes ["/srv" "--send"]`,
		`environment: adds "SEND_TO=collect.example.net"`,
		"Layers: 1 added, 1 removed",
		"built 2026-01-02 00:00 UTC, then 2026-01-03 00:00 UTC",
		"a readable diff of an image's files is not attempted",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("the review does not say %q:\n%s", want, w)
		}
	}
}

// TestResolveTrustsNoDigestItIsTold: a registry that says its manifest is
// another image's (the digest it would serve later) is not believed: the
// digest pinned is the one of what it sent.
func TestResolveTrustsNoDigestItIsTold(t *testing.T) {
	t.Parallel()
	r := ocitest.Start(t)
	d1 := r.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}})
	evil := r.Push(t, "evil:latest", 9, v1.Config{Entrypoint: []string{"/steal"}})
	r.Lie(evil)
	spec, _ := ocipin.Detect("docker", []string{"run", r.Host + "/echo:latest"})
	// The lie is told: a client that believed the registry's header
	// would pin the other image.
	tag, _ := spec.Ref()
	if head, err := remote.Head(tag); err != nil || head.Digest.String() != evil {
		t.Fatalf("the registry does not lie: %v %v", head, err)
	}
	img, err := ocipin.Registry{Keychain: authn.NewMultiKeychain()}.Resolve(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if img.Digest != d1 {
		t.Fatalf("pinned %s, want the digest of what was sent, %s (the registry said %s)", img.Digest, d1, evil)
	}
}

// TestResolveWithTheHomesDockerConfig: a registry that asks for a
// credential is answered with the one the home's docker config names for
// it, as docker would send it; without that config, it refuses.
func TestResolveWithTheHomesDockerConfig(t *testing.T) {
	t.Parallel()
	r := ocitest.Start(t)
	r.RequireAuth("team", "s3cret")
	d1 := r.Push(t, "private:1", 1, v1.Config{Entrypoint: []string{"/srv"}})
	spec, _ := ocipin.Detect("docker", []string{"run", r.Host + "/private:1"})
	empty := t.TempDir()
	if _, err := (ocipin.Registry{Keychain: ocipin.ConfigKeychain(empty)}).Resolve(t.Context(), spec); err == nil {
		t.Fatal("resolved without a credential")
	}
	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte("team:s3cret"))
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+r.Host+`":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	img, err := ocipin.Registry{Keychain: ocipin.ConfigKeychain(dir)}.Resolve(t.Context(), spec)
	if err != nil || img.Digest != d1 {
		t.Fatalf("with the config's credential: %+v %v", img, err)
	}
}

// TestResolveFailuresInPlainWords: a registry that is not there, one
// whose name is unknown, and one that lacks the image each fail in words
// that say which and what to do, without the library's addresses; the
// cause stays wrapped.
func TestResolveFailuresInPlainWords(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing answers there now
	reg := ocitest.Start(t)
	unknown := roundTrip(func(*http.Request) (*http.Response, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "registry.example", Server: "10.0.0.53:53", IsNotFound: true}}
	})
	for _, c := range []struct {
		image string
		rt    http.RoundTripper
		want  string
		cause func(error) bool
	}{
		{closed + "/echo:latest", nil, "nothing answers at " + closed, func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }},
		{"registry.example/echo:latest", unknown, "cannot find registry.example", func(err error) bool { var d *net.DNSError; return errors.As(err, &d) }},
		{reg.Host + "/built-here:dev", nil, "has no image " + reg.Host + "/built-here:dev (" + ocipin.LocalHint, func(err error) bool { var e *transport.Error; return errors.As(err, &e) }},
	} {
		_, err := ocipin.Registry{Keychain: authn.NewMultiKeychain(), Transport: c.rt}.Resolve(t.Context(), ocipin.Spec{Image: c.image})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "10.0.0.53") || strings.Contains(err.Error(), "dial tcp") {
			t.Errorf("%s: %v, want the words %q and no address", c.image, err, c.want)
		}
		if err != nil && !c.cause(err) {
			t.Errorf("%s: the cause is not wrapped: %#v", c.image, err)
		}
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDetectPodman: podman run is read as docker run is, with podman's
// own options before run and its run flags that take no value; a short
// name (no registry) is detected, to be refused, not run as written.
func TestDetectPodman(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		at    int // -1: not detected
		short bool
	}{
		{[]string{"run", "-i", "--rm", "docker.io/mcp/time"}, 3, false},
		{[]string{"--log-level", "debug", "--remote", "run", "-i", "--replace", "--tls-verify", "-e", "A", "quay.io/o/srv:1"}, 9, false},
		{[]string{"--root=/r", "-c", "box", "container", "run", "--rmi", "-i", "localhost/srv"}, 7, false},
		{[]string{"run", "-i", "127.0.0.1:5000/srv", "x"}, 2, false},
		{[]string{"run", "-i", "--rm", "mcp/time"}, 3, true},
		{[]string{"run", "-i", "time:1"}, 2, true},
		{[]string{"-Z", "run", "-i", "docker.io/x"}, -1, false},
		{[]string{"run", "-i", "docker.io/x@sha256:" + strings.Repeat("a", 64)}, -1, false},
	} {
		s, ok := ocipin.Detect("/usr/bin/podman", c.args)
		if (c.at < 0) != !ok || (ok && (s.At != c.at || !s.Podman || s.ShortName() != c.short)) {
			t.Errorf("Detect(podman %q) = %+v, %v (short %v); want the image at %d, short %v", c.args, s, ok, s.ShortName(), c.at, c.short)
		}
	}
	if s, _ := ocipin.Detect("docker", []string{"run", "mcp/time"}); s.Podman || s.ShortName() {
		t.Errorf("docker's %+v read as podman's short name", s)
	}
}

// TestPodmanShortNameRefused: a short name of podman's is not resolved
// (not even asked of Docker Hub): the words say to name its registry.
func TestPodmanShortNameRefused(t *testing.T) {
	t.Parallel()
	spec, ok := ocipin.Detect("podman", []string{"run", "-i", "foo"})
	if !ok {
		t.Fatal("not detected")
	}
	_, err := ocipin.Registry{Keychain: authn.NewMultiKeychain()}.Resolve(t.Context(), spec)
	if !errors.Is(err, ocipin.ErrShortName) || !strings.Contains(err.Error(), "name the image with its registry, e.g. docker.io/library/foo") {
		t.Fatalf("resolving a short name: %v", err)
	}
}

// TestPodmanCredentialsInItsOrder: podman's credential for a registry is
// the first its auth files name, in podman's order (the runtime folder's,
// then ~/.config's, then docker's config), the most precise key of a file
// first; a file that is not there is passed over.
func TestPodmanCredentialsInItsOrder(t *testing.T) {
	t.Parallel()
	r := ocitest.Start(t)
	r.RequireAuth("team", "s3cret")
	d1 := r.Push(t, "private/srv:1", 1, v1.Config{Entrypoint: []string{"/srv"}})
	spec, _ := ocipin.Detect("podman", []string{"run", r.Host + "/private/srv:1"})
	auth := func(pass string) string { return base64.StdEncoding.EncodeToString([]byte("team:" + pass)) }
	write := func(auths map[string]string) string {
		t.Helper()
		var parts []string
		for k, v := range auths {
			parts = append(parts, `"`+k+`":{"auth":"`+v+`"}`)
		}
		path := filepath.Join(t.TempDir(), "auth.json")
		if err := os.WriteFile(path, []byte(`{"auths":{`+strings.Join(parts, ",")+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dockerDir := func(pass string) string {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"auths":{"`+r.Host+`":{"auth":"`+auth(pass)+`"}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	for _, c := range []struct {
		what   string
		files  []string
		docker string
		ok     bool
	}{
		{"the runtime folder's first", []string{write(map[string]string{r.Host: auth("s3cret")}), write(map[string]string{r.Host: auth("wrong")})}, dockerDir("wrong"), true},
		{"not the later file's", []string{write(map[string]string{r.Host: auth("wrong")}), write(map[string]string{r.Host: auth("s3cret")})}, dockerDir("s3cret"), false},
		{"the repository's key before the registry's", []string{missing, write(map[string]string{r.Host: auth("wrong"), r.Host + "/private": auth("s3cret")})}, t.TempDir(), true},
		{"another repository's key is not it", []string{write(map[string]string{r.Host + "/other": auth("s3cret")})}, t.TempDir(), false},
		{"docker's config last", []string{missing, write(map[string]string{"quay.io": auth("s3cret")})}, dockerDir("s3cret"), true},
	} {
		img, err := ocipin.Registry{Keychain: ocipin.PodmanKeychain(c.files, c.docker)}.Resolve(t.Context(), spec)
		if got := err == nil && img.Digest == d1; got != c.ok {
			t.Errorf("%s: resolved %v (%v), want %v", c.what, got, err, c.ok)
		}
	}
	// Without a login, the words name podman's.
	_, err := ocipin.Registry{Keychain: ocipin.PodmanKeychain(nil, t.TempDir())}.Resolve(t.Context(), spec)
	if err == nil || !strings.Contains(err.Error(), "podman login "+r.Host) || !strings.Contains(err.Error(), "podman images --no-trunc") {
		t.Errorf("without a login: %v", err)
	}
}

// TestPodmanHelperAndAuthFileAlone, as podman reads its auth files: a
// file's credHelpers entry for the registry comes before its keys (a
// stand-in docker-credential-* helper on PATH answers), and with no
// docker folder (REGISTRY_AUTH_FILE set: podman reads that file alone) no
// docker config is read, not the working folder's nor DOCKER_CONFIG's.
func TestPodmanHelperAndAuthFileAlone(t *testing.T) {
	r := ocitest.Start(t)
	r.RequireAuth("team", "s3cret")
	d1 := r.Push(t, "private/srv:1", 1, v1.Config{Entrypoint: []string{"/srv"}})
	spec, _ := ocipin.Detect("podman", []string{"run", r.Host + "/private/srv:1"})
	bin := t.TempDir()
	helper := "#!/bin/sh\n[ \"$1\" = get ] || exit 1\nread host\necho '{\"ServerURL\":\"'$host'\",\"Username\":\"team\",\"Secret\":\"s3cret\"}'\n"
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-mcptraytest"), []byte(helper), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	wrong := base64.StdEncoding.EncodeToString([]byte("team:wrong"))
	file := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(file, []byte(`{"auths":{"`+r.Host+`":{"auth":"`+wrong+`"}},"credHelpers":{"`+r.Host+`":"mcptraytest"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	img, err := ocipin.Registry{Keychain: ocipin.PodmanKeychain([]string{file}, t.TempDir())}.Resolve(t.Context(), spec)
	if err != nil || img.Digest != d1 {
		t.Errorf("the helper's credential before the file's key: %v", err)
	}

	work := t.TempDir()
	right := base64.StdEncoding.EncodeToString([]byte("team:s3cret"))
	if err := os.WriteFile(filepath.Join(work, "config.json"), []byte(`{"auths":{"`+r.Host+`":{"auth":"`+right+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	t.Setenv("DOCKER_CONFIG", work) // where docker's library looks for a config not named
	if _, err := (ocipin.Registry{Keychain: ocipin.PodmanKeychain([]string{filepath.Join(work, "none.json")}, "")}).Resolve(t.Context(), spec); err == nil {
		t.Error("with no docker folder, the working folder's config.json gave the credential")
	}
}
