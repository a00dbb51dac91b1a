package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/test/gobuild"
)

// Command is the import path of the test server's command.
const Command = "github.com/mcptray/mcptray/test/mcpserver/cmd/mcp-testserver"

// Build builds the test server's command into dir and returns its path. It
// is for TestMain functions, which build it once for all their tests.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "mcp-testserver")
	if err := gobuild.Build(bin, Command); err != nil {
		return "", fmt.Errorf("building the test server: %w", err)
	}
	return bin, nil
}

// ServeTest runs the test server in this process over transport ("http"
// or "sse") on a loopback port until the test ends, and returns its URL.
// Its crash tool does not end the test process, and its log is discarded
// unless opts say otherwise.
func ServeTest(t testing.TB, opts Options, transport string) string {
	t.Helper()
	if opts.Exit == nil {
		opts.Exit = func(int) {}
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, opts, transport, "127.0.0.1:0", nil, pw); pw.Close() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("test server: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the test server's URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line)
}

// RunTests is a whole TestMain for packages that run the test server as a
// program: it builds it into a temporary folder, sets *bin to its path,
// runs the tests and removes the folder. It returns the exit code.
func RunTests(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "mcp-testserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
