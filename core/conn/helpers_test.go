package conn

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// testServerBin is the in-repo MCP test server, built once for all tests.
var testServerBin string

// TestMain runs the tests or, run as "TEST-BINARY sandbox-exec …", is
// the sandbox's launcher, as mcptray itself is (sandbox_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LauncherArg {
		os.Exit(sandbox.Launch(os.Args[2:], os.Stderr))
	}
	os.Exit(mcpserver.RunTests(m, &testServerBin))
}

// deadline bounds every wait in these tests; passing tests wait only as
// long as they must.
const deadline = 20 * time.Second

// testOptions are short timeouts, so that failures show quickly.
func testOptions() Options {
	return Options{
		ConnectTimeout: 5 * time.Second,
		RequestTimeout: 5 * time.Second,
		MinBackoff:     20 * time.Millisecond,
		MaxBackoff:     200 * time.Millisecond,
		StdioGrace:     2 * time.Second,
		BaseEnv:        os.Environ(),
	}
}

func newTestManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	m := New(opts)
	t.Cleanup(func() { m.Close() })
	return m
}

// stdioEntry is a config entry that runs the test server with flags.
func stdioEntry(name string, flags ...string) config.Entry {
	s := config.Server{Name: name, ConfigName: name, Scope: config.User, Transport: config.Stdio,
		Command: testServerBin, Args: append([]string{"-name", name}, flags...)}
	return config.Entry{Server: s, Signature: config.Signature(&s), ApprovalKey: config.ApprovalKey(&s), Approval: config.NotNeeded}
}

// remoteEntry is a config entry for a remote server at url.
func remoteEntry(name, url string, t config.Transport) config.Entry {
	s := config.Server{Name: name, ConfigName: name, Scope: config.User, Transport: t, URL: url}
	return config.Entry{Server: s, Signature: config.Signature(&s), ApprovalKey: config.ApprovalKey(&s), Approval: config.NotNeeded}
}

func setOf(entries ...config.Entry) *config.Set { return &config.Set{Servers: entries} }

// serveTest runs the test server in this process over http or sse.
func serveTest(t *testing.T, opts mcpserver.Options, transport string) string {
	return mcpserver.ServeTest(t, opts, transport)
}

// waitFor waits until the server called name satisfies ok, and returns it.
func waitFor(t *testing.T, m *Manager, name, what string, ok func(ServerInfo) bool) ServerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	events := m.Subscribe(ctx)
	for {
		if info, found := m.Report().Find(name); found && ok(info) {
			return info
		}
		select {
		case <-events:
		case <-ctx.Done():
			info, _ := m.Report().Find(name)
			t.Fatalf("%s: waited %v for %s; it is %s (%s)", name, deadline, what, info.Status.State, info.Status.Err)
		}
	}
}

func waitState(t *testing.T, m *Manager, name string, want State) ServerInfo {
	t.Helper()
	return waitFor(t, m, name, want.String(), func(i ServerInfo) bool { return i.Status.State == want })
}
