// Package e2e holds mcptray's end-to-end tests, which run the mcptray
// program (and the in-repo test server) as a person or an AI app does,
// and the benchmarks that time it the same way.
//
// Binary builds mcptray once per test process, however many tests ask;
// TestServer and Build do the same for other commands. Other test
// packages use them too (test/conformance). A package that does calls
// Main from its TestMain, which removes the builds at the end.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/test/gobuild"
)

// Module is mcptray's module path: the package Binary builds.
const Module = "github.com/mcptray/mcptray"

// testServerPkg is the in-repo MCP test server's command (test/mcpserver).
const testServerPkg = Module + "/test/mcpserver/cmd/mcp-testserver"

// build is one command built at most once.
type build struct {
	once sync.Once
	path string
	err  error
}

var (
	mu     sync.Mutex
	dir    string // holds every build; removed by Main
	builds = map[string]*build{}
)

// Main runs m's tests and removes what Binary, TestServer and Build
// built; a TestMain returns its code: os.Exit(e2e.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	return code
}

// Binary returns mcptray's program, built on first use. Without cgo
// (CGO_ENABLED=0) it builds with Fyne's software driver (-tags ci), as
// `CGO_ENABLED=0 go test -tags ci ./...` does.
func Binary(t testing.TB) string {
	t.Helper()
	var args []string
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err == nil && strings.TrimSpace(string(out)) == "0" {
		args = append(args, "-tags", "ci")
	}
	// Beside it, as packages install it, the sandbox's launcher.
	Build(t, "mcptray-sandbox", Module+"/core/sandbox/cmd/mcptray-sandbox")
	return Build(t, "mcptray", Module, args...)
}

// TestServer returns the in-repo MCP test server's program
// (test/mcpserver), built on first use.
func TestServer(t testing.TB) string {
	t.Helper()
	return Build(t, "mcp-testserver", testServerPkg)
}

// Build returns the command pkg (an import path) built as name with the
// go build flags given, on first use; t is skipped where there is no go
// command and fails when the build does.
func Build(t testing.TB, name, pkg string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build " + name)
	}
	mu.Lock()
	b := builds[name]
	if b == nil {
		b = &build{}
		builds[name] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.path, b.err = goBuild(name, pkg, flags) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func goBuild(name, pkg string, flags []string) (string, error) {
	mu.Lock()
	if dir == "" {
		d, err := os.MkdirTemp("", "mcptray-e2e")
		if err != nil {
			mu.Unlock()
			return "", fmt.Errorf("making a folder for the builds: %w", err)
		}
		dir = d
	}
	bin := filepath.Join(dir, name)
	mu.Unlock()
	if err := gobuild.Build(bin, pkg, flags...); err != nil {
		return "", err
	}
	return bin, nil
}

// Own returns bin linked (or copied) into a new folder of t's, so that
// the processes t starts from it can be told from other tests' by their
// program's path (/proc/PID/cmdline), as tests that count processes do.
func Own(t testing.TB, bin string) string {
	t.Helper()
	return OwnAs(t, bin, filepath.Base(bin))
}

// OwnAs is Own under another name: a program a server's command names
// (docker) played by bin.
func OwnAs(t testing.TB, bin, name string) string {
	t.Helper()
	own := filepath.Join(t.TempDir(), name)
	if err := os.Link(bin, own); err == nil {
		return own
	}
	data, err := os.ReadFile(bin)
	if err == nil {
		err = os.WriteFile(own, data, 0o755)
	}
	if err != nil {
		t.Fatalf("copying %s for the test: %v", filepath.Base(bin), err)
	}
	return own
}
