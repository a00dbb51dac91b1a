package npmpin

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/npmpin/npmtest"
)

// serverVersion runs a pinned tree's program as mcptray would (no npx, no
// registry), asks it to initialize, and returns the version it says.
func serverVersion(t *testing.T, p Pin) string {
	t.Helper()
	command, args, err := p.Program()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running %s %v: %v", command, args, err)
	}
	var reply struct {
		Result struct {
			ServerInfo struct{ Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	line, _ := bufio.NewReader(strings.NewReader(string(out))).ReadString('\n')
	if err := json.Unmarshal([]byte(line), &reply); err != nil {
		t.Fatalf("reading %q: %v", out, err)
	}
	return reply.Result.ServerInfo.Version
}

// TestPinnedAcrossPublishes: a server pinned at v1 keeps running v1 after
// v2 is published; the check finds v2, whose review names the line it
// added first; v3's dependency turning is caught the same way.
func TestPinnedAcrossPublishes(t *testing.T) {
	r := npmtest.Start(t)
	r.Publish(t, npmtest.Server("1.0.0"))
	n := &NPM{Env: r.Env, Cache: filepath.Join(t.TempDir(), "cache")}
	root := filepath.Join(t.TempDir(), "packages")
	ctx := t.Context()
	spec, ok := Detect("npx", []string{"-y", "echo-mcp"})
	if !ok {
		t.Fatal("npx -y echo-mcp not detected")
	}

	v1, err := n.ResolveInstall(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Install(ctx, v1); err != nil { // installed already: checked, kept
		t.Fatal(err)
	}
	if got := serverVersion(t, v1); got != "1.0.0" {
		t.Fatalf("pinned tree runs %s, want 1.0.0", got)
	}
	f := n.Facts(ctx, v1)
	if w := f.Words(time.Now()); !strings.Contains(w, "echo-mcp version 1.0.0, published just now, 1 package in all") {
		t.Errorf("facts say %q", w)
	}

	r.Publish(t, npmtest.Server("2.0.0"))
	if got := serverVersion(t, v1); got != "1.0.0" {
		t.Fatalf("after v2 was published the pinned tree runs %s, want 1.0.0", got)
	}
	v2, err := n.Resolve(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Lock.Hash == v1.Lock.Hash || v2.Version() != "2.0.0" {
		t.Fatalf("the check found %s (%s), want 2.0.0 in another tree", v2.Version(), v2.Short())
	}
	if err := n.Install(ctx, v2); err != nil {
		t.Fatal(err)
	}
	rv, err := Compare(v1, v2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Destinations) != 1 || rv.Destinations[0].File != "echo-mcp/index.js" ||
		!strings.Contains(rv.Destinations[0].What, "a new address, collect.example.net") ||
		!strings.Contains(rv.Destinations[0].Text, "collect.example.net") {
		t.Fatalf("the review's destinations are %+v, want the added line", rv.Destinations)
	}
	words := rv.Words()
	if !strings.HasPrefix(words[strings.Index(words, "\n")+1:], "\nNew lines that send data somewhere") {
		t.Errorf("the review does not put the new destination first:\n%s", words)
	}
	t.Logf("review:\n%s", words)
	if got := serverVersion(t, v1); got != "1.0.0" {
		t.Fatalf("v1's tree runs %s after v2 was installed beside it", got)
	}
	if got := serverVersion(t, v2); got != "2.0.0" {
		t.Fatalf("v2's tree runs %s", got)
	}

	// v3 depends on fmt-helper ^1.0.0; 1.0.1 turns.
	r.Publish(t, npmtest.Helper("1.0.0"))
	r.Publish(t, npmtest.Server("3.0.0"))
	v3, err := n.Resolve(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Install(ctx, v3); err != nil {
		t.Fatal(err)
	}
	r.Publish(t, npmtest.Helper("1.0.1"))
	v3b, err := n.Resolve(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if v3b.Lock.Hash == v3.Lock.Hash || v3b.Version() != "3.0.0" {
		t.Fatalf("a dependency's new version gave the same tree (%s)", v3b.Short())
	}
	if err := n.Install(ctx, v3b); err != nil {
		t.Fatal(err)
	}
	rd, err := Compare(v3, v3b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Packages) != 1 || rd.Packages[0].Name != "fmt-helper" || rd.Packages[0].From != "1.0.0" || rd.Packages[0].To != "1.0.1" {
		t.Errorf("packages changed: %+v", rd.Packages)
	}
	if len(rd.Destinations) != 1 || rd.Destinations[0].File != "fmt-helper/index.js" ||
		!strings.Contains(rd.Destinations[0].What, "helper-stats.example.org") || !strings.Contains(rd.Destinations[0].What, "fetch") {
		t.Fatalf("the dependency's review: %+v", rd.Destinations)
	}
	t.Logf("dependency's review:\n%s", rd.Words())
}

// TestPinnedTreeTampered: a folder whose lockfile no longer gives the
// pin's hash is refused, and nothing is installed from it.
func TestPinnedTreeTampered(t *testing.T) {
	r := npmtest.Start(t)
	r.Publish(t, npmtest.Server("1.0.0"))
	n := &NPM{Env: r.Env, Cache: filepath.Join(t.TempDir(), "cache")}
	spec, _ := Detect("npx", []string{"-y", "echo-mcp@1.0.0"})
	p, err := n.Resolve(t.Context(), filepath.Join(t.TempDir(), "packages"), spec)
	if err != nil {
		t.Fatal(err)
	}
	forged := p
	forged.Lock.Hash = strings.Repeat("0", 64)
	if err := n.Install(t.Context(), forged); err == nil || !strings.Contains(err.Error(), "pinned tree changed") {
		t.Fatalf("installing a tree whose lockfile is not the pin's: %v", err)
	}
}
