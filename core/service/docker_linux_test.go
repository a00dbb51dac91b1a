package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/npmpin"
	"github.com/mcptray/mcptray/core/ocipin/ocitest"
)

// standInDocker is a copy of the test server named docker, in a folder
// of its own: no Docker daemon runs here, and it serves MCP as the image
// would, its env tool saying the command line docker was given.
func standInDocker(t *testing.T) string {
	t.Helper()
	return standIn(t, "docker")
}

// standIn is a copy of the test server called client (docker, podman).
func standIn(t *testing.T, client string) string {
	t.Helper()
	b, err := os.ReadFile(testServerBin)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), client)
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// dockerArgs is the command line the server called name gave docker.
func dockerArgs(t *testing.T, s *Service, name string) string {
	t.Helper()
	waitLong(t, s, name+" connected", func(snap Snapshot) bool {
		sv, _ := snap.Find(name)
		if sv.State == conn.Failed {
			t.Fatalf("%s failed: %s\n%s", name, sv.Reason, sv.Stderr)
		}
		return sv.State == conn.Connected
	})
	res, err := s.Call(t.Context(), CallRequest{Server: name, Tool: "env", Arguments: json.RawMessage(`{"name":"DOCKER_ARGS"}`)})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := res.Content[0].(mcp.TextContent)
	return text.Text
}

// waitDockerArgs waits until the server called name runs with want in
// docker's command line: an update restarts it.
func waitDockerArgs(t *testing.T, s *Service, name, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := dockerArgs(t, s, name)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s runs docker %s, want %s", name, got, want)
		}
		waitChange(t, s)
	}
}

// waitChange waits for s's next change notice, a minute at most.
func waitChange(t *testing.T, s *Service) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	notices, err := s.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-notices // the first comes at once
	select {
	case <-notices:
	case <-ctx.Done():
	}
}

// TestDockerServerRunsThePinnedDigest: a server configured as docker run
// … REGISTRY/echo:latest, against a registry on loopback, runs as docker
// run … REGISTRY/echo@sha256:(v1) from its first start; once v2 is pushed
// at the same tag, it still runs v1, after a restart too (the tag moved
// between approval and start). The check lists v2, its review naming the
// changed entrypoint and environment; v2 runs only once the person
// updates, and going back runs v1 again.
func TestDockerServerRunsThePinnedDigest(t *testing.T) {
	t.Parallel()
	reg := ocitest.Start(t)
	d1 := reg.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}, Env: []string{"MODE=1"}})
	docker := standInDocker(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	image := reg.Host + "/echo:latest"
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": docker, "args": []string{"run", "-i", "--rm", "-e", "MODE", "--name", "echo", image}},
	}})
	start := func() *Service {
		return h.start(true, func(o *Options) {
			o.Launcher = self
			o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir)
			// Credentials from the home's ~/.docker (none), not the
			// person's.
			o.Packages = &PackageOptions{}
		})
	}
	s := start()
	pinned := "run -i --rm -e MODE --name echo " + reg.Host + "/echo@" + d1
	if got := dockerArgs(t, s, "echo"); got != pinned {
		t.Fatalf("the first start runs docker %s, want %s", got, pinned)
	}
	views, err := s.Packages(t.Context())
	if err != nil || len(views) != 1 || !strings.Contains(views[0].Words, "pinned at "+d1[:19]) {
		t.Fatalf("the pin's facts: %+v %v", views, err)
	}
	s.Close()

	d2 := reg.Push(t, "echo:latest", 2, v1.Config{Entrypoint: []string{"/srv", "--send"}, Env: []string{"MODE=1", "SEND_TO=collect.example.net"}})
	s = start()
	if got := dockerArgs(t, s, "echo"); got != pinned {
		t.Fatalf("after v2 was pushed at its tag it runs docker %s, want v1's %s", got, pinned)
	}
	views, err = s.CheckPackages(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Update == nil || views[0].Update.ToHash != strings.TrimPrefix(d2, "sha256:") {
		t.Fatalf("the check lists %+v, want v2 %s", views, d2)
	}
	// Tried once in its sandbox, as an npm update is: docker's stand-in
	// started with v2's digest, and listed the tools v1 did.
	if tr := views[0].Trial; !tr.Started() || tr.Changed() {
		t.Errorf("the update's trial: %+v", tr)
	}
	words := views[0].Update.Words()
	for _, want := range []string{`entrypoint: ["/srv"] becomes ["/srv" "--send"]`, `environment: adds "SEND_TO=collect.example.net"`, "not attempted"} {
		if !strings.Contains(words, want) {
			t.Errorf("the review does not say %q:\n%s", want, words)
		}
	}
	if got := dockerArgs(t, s, "echo"); got != pinned {
		t.Fatalf("after the check, before the person updates, it runs docker %s", got)
	}
	v, err := s.UpdatePackage(t.Context(), PackageUpdate{Name: "echo", Tree: views[0].Update.ToHash})
	if err != nil {
		t.Fatal(err)
	}
	if v.Back != d1[:19] {
		t.Errorf("after the update, back goes to %q, want %s", v.Back, d1[:19])
	}
	waitDockerArgs(t, s, "echo", "echo@"+d2)
	if _, err := s.UpdatePackage(t.Context(), PackageUpdate{Name: "echo", Back: true}); err != nil {
		t.Fatal(err)
	}
	waitDockerArgs(t, s, "echo", "echo@"+d1)
}

// TestDockerImageNotInItsRegistryIsHeld: a docker server whose image its
// registry does not have (one built on this computer only) does not run
// by its tag: it fails, and says how to name it by its ID.
func TestDockerImageNotInItsRegistryIsHeld(t *testing.T) {
	t.Parallel()
	reg := ocitest.Start(t)
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"local": map[string]any{"command": standInDocker(t), "args": []string{"run", "-i", reg.Host + "/built-here:dev"}},
	}})
	s := h.start(true, func(o *Options) { o.Packages = &PackageOptions{} })
	snap := waitLong(t, s, "local failed", func(snap Snapshot) bool {
		sv, _ := snap.Find("local")
		if sv.State == conn.Connected {
			t.Fatal("it runs by its tag")
		}
		return sv.State == conn.Failed
	})
	sv, _ := snap.Find("local")
	if !strings.Contains(sv.Reason, "its image could not be pinned") || !strings.Contains(sv.Reason, "docker images --no-trunc") {
		t.Errorf("it says: %s", sv.Reason)
	}
	// Its fix is Retry, not approve (a server of the person's own needs
	// no approval); once the image is pushed, Retry pins and runs it.
	if sv.Fix.Action != RetryAction {
		t.Errorf("its fix is %+v, want Retry", sv.Fix)
	}
	d := reg.Push(t, "built-here:dev", 3, v1.Config{Entrypoint: []string{"/srv"}})
	if err := s.Retry(t.Context(), "local"); err != nil {
		t.Fatal(err)
	}
	if got := dockerArgs(t, s, "local"); !strings.Contains(got, "built-here@"+d) {
		t.Errorf("after Retry it runs docker %s, want the pushed image's digest %s", got, d)
	}
}

// TestDockerForgedPinIsNotRun: a record of the pins edited to name another
// image's digest than the one approved (its hash) is not run: the server
// is held, and fails in words, and docker is never given that digest.
func TestDockerForgedPinIsNotRun(t *testing.T) {
	t.Parallel()
	reg := ocitest.Start(t)
	reg.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}})
	evil := reg.Push(t, "evil:latest", 9, v1.Config{Entrypoint: []string{"/steal"}})
	docker := standInDocker(t)
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": docker, "args": []string{"run", "-i", reg.Host + "/echo:latest"}},
	}})
	start := func() *Service { return h.start(true, func(o *Options) { o.Packages = &PackageOptions{} }) }
	s := start()
	if got := dockerArgs(t, s, "echo"); !strings.Contains(got, "@sha256:") {
		t.Fatalf("it runs docker %s", got)
	}
	s.Close()
	err := s.packageStore().Change(t.Context(), func(all map[string]npmpin.Record) error {
		r := all["echo"]
		r.Current.Image.Digest = evil
		all["echo"] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s = start()
	snap := waitLong(t, s, "echo failed", func(snap Snapshot) bool {
		sv, _ := snap.Find("echo")
		if sv.State == conn.Connected {
			t.Fatalf("the forged pin runs: docker %s", dockerArgs(t, s, "echo"))
		}
		return sv.State == conn.Failed
	})
	if sv, _ := snap.Find("echo"); !strings.Contains(sv.Reason, "its image could not be pinned") || !strings.Contains(sv.Reason, "not the") {
		t.Errorf("it says: %s", sv.Reason)
	}
}
