package service

import (
	"encoding/base64"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/ocipin/ocitest"
)

// TestPodmanServerRunsThePinnedDigest: a podman run server is pinned as a
// docker one is, asking its registry with the credential podman would
// send: that of ${XDG_RUNTIME_DIR}/containers/auth.json, before the one
// ~/.config/containers/auth.json and docker's config name (both wrong
// here), in the home mcptray serves. A server that names its image
// without its registry is held, and its words say to name the registry;
// podman is never started for it.
func TestPodmanServerRunsThePinnedDigest(t *testing.T) {
	t.Parallel()
	reg := ocitest.Start(t)
	reg.RequireAuth("team", "s3cret")
	d1 := reg.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}})
	podman := standIn(t, "podman")
	h := newHome(t)
	auth := func(pass string) string {
		return `{"auths":{"` + reg.Host + `":{"auth":"` + base64.StdEncoding.EncodeToString([]byte("team:"+pass)) + `"}}}`
	}
	h.env["XDG_RUNTIME_DIR"] = h.dir + "/run"
	h.writeFiles(map[string]string{
		"run/containers/auth.json":     auth("s3cret"),
		".config/containers/auth.json": auth("wrong"),
		".docker/config.json":          auth("wrong"),
	})
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"echo":  map[string]any{"command": podman, "args": []string{"--log-level", "info", "run", "-i", "--rm", "--replace", "--name", "echo", reg.Host + "/echo"}},
		"short": map[string]any{"command": podman, "args": []string{"run", "-i", "--rm", "time"}},
	}})
	s := h.start(true, func(o *Options) { o.Packages = &PackageOptions{} })
	pinned := "--log-level info run -i --rm --replace --name echo " + reg.Host + "/echo@" + d1
	if got := dockerArgs(t, s, "echo"); got != pinned {
		t.Fatalf("it runs podman %s, want %s", got, pinned)
	}
	snap := waitLong(t, s, "short failed", func(snap Snapshot) bool {
		sv, _ := snap.Find("short")
		if sv.State == conn.Connected {
			t.Fatalf("a short name runs as written: podman %s", dockerArgs(t, s, "short"))
		}
		return sv.State == conn.Failed
	})
	sv, _ := snap.Find("short")
	for _, want := range []string{"its image could not be pinned", "registries.conf", "name the image with its registry, e.g. docker.io/library/time"} {
		if !strings.Contains(sv.Reason, want) {
			t.Errorf("the short name's words lack %q: %s", want, sv.Reason)
		}
	}
}
