package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/mcptray/mcptray/core/ocipin/ocitest"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
)

// TestDockerApproveBindsTheDigest: approving a project's docker run
// server pins the digest its image's tag names then, and says so ("image
// … pinned at sha256:…, built …"); an image pushed after at the same tag
// is an update, which mcptray updates lists with its configuration's
// changes, and which runs only after mcptray update; --back runs the
// first again. docker is a stand-in that serves MCP and says its command
// line: no Docker daemon runs here.
func TestDockerApproveBindsTheDigest(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock: a look needs the sandbox")
	}
	reg := ocitest.Start(t)
	d1 := reg.Push(t, "echo:latest", 1, v1.Config{Entrypoint: []string{"/srv"}, Env: []string{"MODE=1"}})
	b, err := os.ReadFile(testServerBin)
	if err != nil {
		t.Fatal(err)
	}
	docker := filepath.Join(t.TempDir(), "docker")
	if err := os.WriteFile(docker, b, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	h.launcher = self
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"echo": map[string]any{
		"command": docker, "args": []string{"run", "-i", "--rm", "-v", "/data:/data", reg.Host + "/echo:latest"}}}})
	proj := strings.TrimSuffix(h.write("proj/.mcp.json", string(entry)), "/.mcp.json")
	h.must("folders", "add", proj)

	facts := "image " + reg.Host + "/echo:latest pinned at " + d1[:19] + "…, built 2026-01-02"
	if out := h.must("approve", "--look", "echo"); !strings.Contains(out, "It runs "+facts+".\nPinned: approving it runs exactly that image") {
		t.Fatalf("approve --look says:\n%s", out)
	}
	if out := h.must("approve", "echo"); !strings.Contains(out, facts) {
		t.Fatalf("approve says:\n%s", out)
	}
	runs := func(want string) {
		t.Helper()
		out := h.must("call", "echo", "env", `{"name":"DOCKER_ARGS"}`)
		if !strings.Contains(out, "run -i --rm -v /data:/data "+reg.Host+"/echo@"+want) {
			t.Fatalf("echo runs docker %s, want %s", out, want)
		}
	}
	runs(d1)

	d2 := reg.Push(t, "echo:latest", 2, v1.Config{Entrypoint: []string{"/srv", "--send"}, Env: []string{"MODE=1", "SEND_TO=collect.example.net"}})
	runs(d1) // the tag moved: what was approved runs
	if out := h.must("approve", "echo"); !strings.Contains(out, facts) {
		t.Errorf("approving again after v2 was pushed says:\n%s", out)
	}
	out := h.must("updates")
	tree := strings.TrimPrefix(d2, "sha256:")[:16]
	for _, want := range []string{
		"echo runs " + facts,
		"Update: image " + reg.Host + "/echo:latest: " + d1[:19] + "… to " + d2[:19] + "…",
		`entrypoint: ["/srv"] becomes ["/srv" "--send"]`,
		`environment: adds "SEND_TO=collect.example.net"`,
		"a readable diff of an image's files is not attempted",
		"mcptray update echo --tree " + tree + " runs it",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mcptray updates does not say %q:\n%s", want, out)
		}
	}
	var views []service.PackageView
	if err := json.Unmarshal([]byte(h.must("updates", "--json")), &views); err != nil {
		t.Fatal(err)
	}
	if len(views) != 1 || views[0].Update == nil || views[0].Update.Image == nil || views[0].Update.Image.To.Digest != d2 {
		t.Fatalf("mcptray updates --json: %+v", views)
	}
	runs(d1)
	if out := h.must("update", "echo", "--tree", tree); !strings.Contains(out, "pinned at "+d2[:19]) || !strings.Contains(out, "--back runs version "+d1[:19]+" again") {
		t.Errorf("mcptray update says %q", out)
	}
	runs(d2)
	h.must("update", "echo", "--back")
	runs(d1)
}
