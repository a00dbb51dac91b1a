package service

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/npmpin/npmtest"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestPinnedProvenanceShown: a registry that serves attestations as npm's
// does (npmtest.Attesting, in front of a real verdaccio) is asked where a
// project's npx server's version was built when it is pinned, before
// approval: the look says "built from … by its CI — claimed, not
// verified". Its next version is published by hand, as with a stolen
// token: the update's review says so before anything else, even before
// the line that sends data to a new address.
func TestPinnedProvenanceShown(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	r, reg, npx := attestedEcho(t)
	h := npxEchoProject(t, reg.URL, npx)
	s := h.start(true, inSandbox(h), func(o *Options) { o.Packages = &PackageOptions{} })
	waitFor(t, s, "echo to wait for approval", func(s Snapshot) bool { return state(s, "echo") == conn.AwaitingApproval })

	l, err := s.LookAtTools(t.Context(), "echo")
	if err != nil {
		t.Fatal(err)
	}
	const built = "built from github.com/echo/echo-mcp (refs/tags/v1.0.0, commit 0123456789ab) by its CI — claimed, not verified against Sigstore"
	if l.Package == nil || !strings.Contains(l.Package.Words, "echo-mcp version 1.0.0") || !strings.HasSuffix(l.Package.Words, "; "+built) {
		t.Fatalf("the look says it runs %+v", l.Package)
	}
	if _, err := s.Approve(t.Context(), "echo"); err != nil {
		t.Fatal(err)
	}
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("approved, it runs %q", got)
	}
	views, err := s.Packages(t.Context())
	if err != nil || len(views) != 1 || !strings.HasSuffix(views[0].Words, "; "+built) {
		t.Fatalf("what runs: %+v, %v", views, err)
	}

	r.Publish(t, npmtest.Server("2.0.0"))
	if views, err = s.CheckPackages(t.Context()); err != nil {
		t.Fatal(err)
	}
	rv := views[0].Update
	if rv == nil || rv.ToVersion != "2.0.0" || !rv.OriginLost() {
		t.Fatalf("the check found %+v", rv)
	}
	words := rv.Words()
	lost := strings.Index(words, "Where it was built changed (read this first): version 1.0.0 was "+built+"; version 2.0.0 was published by hand: nothing says where it was built.")
	leak := strings.Index(words, "New lines that send data somewhere")
	if lost < 0 || leak < 0 || lost > leak {
		t.Errorf("the review does not put the lost provenance first:\n%s", words)
	}
	if asked := reg.Asked(); len(asked) != 2 || asked[0] != "echo-mcp@1.0.0" || asked[1] != "echo-mcp@2.0.0" {
		t.Errorf("the registry was asked for %v, want 1.0.0 when pinned and 2.0.0 when checked", asked)
	}
}

// TestAddedPackageShown: a server installed with npx is pinned as it is
// added, and the install's answer says what it runs and where that was
// built, as the install dialog shows it; its first start runs that tree,
// without pinning it again.
func TestAddedPackageShown(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	_, reg, npx := attestedEcho(t)
	h := newHome(t)
	h.writeFiles(map[string]string{".npmrc": "registry=" + reg.URL + "\n"})
	s := h.start(true, inSandbox(h), func(o *Options) { o.Packages = &PackageOptions{} })
	entry, err := json.Marshal(map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Add(t.Context(), AddRequest{Name: "echo", Entry: entry})
	if err != nil {
		t.Fatal(err)
	}
	if res.Package == nil || !strings.HasPrefix(res.Package.Words, "echo-mcp version 1.0.0, published just now, 1 package in all; built from github.com/echo/echo-mcp (refs/tags/v1.0.0, commit 0123456789ab) by its CI") {
		t.Fatalf("the install says it runs %+v", res.Package)
	}
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("added, it runs %q", got)
	}
	if asked := reg.Asked(); len(asked) != 1 {
		t.Errorf("the registry was asked for %v: pinned again at its first start?", asked)
	}
}

// sandboxedNpx skips t where a pinned npx server in its sandbox cannot
// be tried, and says where npx is.
func sandboxedNpx(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a registry")
	}
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	return npx
}

// attestedEcho is a registry (npmtest.Start) with echo-mcp 1.0.0, and in
// front of it one that serves its attestation as npm's does: built from
// github.com/echo/echo-mcp by its CI.
func attestedEcho(t *testing.T) (*npmtest.Registry, *npmtest.Attesting, string) {
	t.Helper()
	npx := sandboxedNpx(t)
	r := npmtest.Start(t)
	reg := r.Attest(t)
	r.Publish(t, npmtest.Server("1.0.0"))
	const repo, commit = "https://github.com/echo/echo-mcp", "0123456789abcdef0123456789abcdef01234567"
	reg.Set("echo-mcp@1.0.0", npmtest.Attestation(t, "echo-mcp", "1.0.0", reg.Integrity(t, "echo-mcp", "1.0.0"), repo, commit))
	return r, reg, npx
}

// npxEchoProject is a home whose ~/.npmrc names the registry at url, with
// a project folder whose .mcp.json runs npx -y echo-mcp as echo.
func npxEchoProject(t *testing.T, url, npx string) *home {
	t.Helper()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	h.writeFiles(map[string]string{".npmrc": "registry=" + url + "\n"})
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}}}})
	return h
}

// TestPinnedWithTheServersNpmConfig: a server whose config's env names
// its registry (npm_config_registry, as npx would read it when it runs;
// the home's ~/.npmrc names one that is not there) is resolved from that
// registry, and its provenance asked of it; a variable of that env that
// would make npm run a program (npm_config_git) is not given to npm.
func TestPinnedWithTheServersNpmConfig(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	_, reg, npx := attestedEcho(t)
	h := newHome(t)
	h.writeFiles(map[string]string{".npmrc": "registry=http://127.0.0.1:1/\n"})
	planted := filepath.Join(h.dir, "planted-git")
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"},
			"env": map[string]string{"npm_config_registry": reg.URL, "npm_config_git": planted}}}})
	s := h.start(true, inSandbox(h), func(o *Options) { o.Packages = &PackageOptions{} })
	if got := echoSays(t, s, "echo"); got != "hi [1.0.0]" {
		t.Fatalf("it runs %q", got)
	}
	views, err := s.Packages(t.Context())
	if err != nil || len(views) != 1 || !strings.Contains(views[0].Words, "built from github.com/echo/echo-mcp") {
		t.Fatalf("what runs: %+v, %v", views, err)
	}
	if asked := reg.Asked(); len(asked) == 0 || asked[0] != "echo-mcp@1.0.0" {
		t.Errorf("the server's registry was asked for %v", asked)
	}
	n := s.npmOf(t.Context(), "echo")
	if !slices.Contains(n.Env, "npm_config_registry="+reg.URL) || slices.ContainsFunc(n.Env, func(kv string) bool { return strings.HasPrefix(kv, "npm_config_git=") }) {
		t.Errorf("npm's environment for echo: registry given %v, git given %v",
			slices.Contains(n.Env, "npm_config_registry="+reg.URL), slices.ContainsFunc(n.Env, func(kv string) bool { return strings.HasPrefix(kv, "npm_config_git=") }))
	}
}
