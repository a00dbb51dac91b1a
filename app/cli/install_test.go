package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// runAtTerminal runs one command as if a person sat at a terminal, their
// answers on stdin.
func (h *home) runAtTerminal(stdin string, args ...string) (int, string, string) {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Env{
		Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Paths: &h.paths, Store: h.store, Interactive: true, Launcher: h.launcher, HTTP: h.http,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Now:    func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) },
	})
	return code, out.String(), errOut.String()
}

// TestInstallSeveralWays: an entry with several packages and remotes is
// installed the way the person picks (--runtime, --remote, --use N, or an
// answer at the terminal); without a terminal and a pick, the first way
// that can run here is taken, and the output says which and how to choose.
func TestInstallSeveralWays(t *testing.T) {
	t.Parallel()
	h, _ := registryHome(t) // npx is installed, docker is not
	code, out, errOut := h.runIn("tok-1\n", "install", registrytest.Several)
	if code != 0 || !strings.Contains(out, "io.github.example/notes can run in 4 ways; using 1: npm package @example/notes-mcp, run with npx. Choose another with --use N (1: npm package") ||
		!strings.Contains(out, "5: remote at https://notes.example.com/sse (SSE))") {
		t.Fatalf("install: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := h.runIn("tok-2\n", "install", registrytest.Several, "--as", "docker-notes", "--runtime", "docker"); code != 0 ||
		strings.Contains(out, "ways") || !strings.Contains(out, "Note: docker is not installed here") {
		t.Fatalf("--runtime docker: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := h.runIn("Bearer tok-3\n", "install", registrytest.Several, "--as", "hosted", "--remote"); code != 0 ||
		!strings.Contains(out, "can run in 2 ways; using 4: remote at https://notes.example.com/mcp.") {
		t.Fatalf("--remote: %d\n%s%s", code, out, errOut)
	}
	h.must("install", registrytest.Several, "--as", "sse", "--use", "5")

	entries := h.userEntries()
	for name, want := range map[string]string{
		"notes":        `{"args":["-y","@example/notes-mcp@2.0.0"],"command":"npx","env":{"NOTES_TOKEN":"${secret:NOTES_TOKEN}"}}`,
		"docker-notes": `{"args":["run","-i","--rm","-e","NOTES_TOKEN","ghcr.io/example/notes-mcp:2.0.0"],"command":"docker","env":{"NOTES_TOKEN":"${secret:NOTES_TOKEN}"}}`,
		"hosted":       `{"headers":{"Authorization":"${secret:Authorization}"},"type":"http","url":"https://notes.example.com/mcp"}`,
		"sse":          `{"type":"sse","url":"https://notes.example.com/sse"}`,
	} {
		if got := mustJSON(t, entries[name]); got != want {
			t.Errorf("%s = %s\nwant %s", name, got, want)
		}
	}

	h.fails(2, "--use takes a number", "install", registrytest.Several, "--use", "npm")
	h.fails(1, "mcptray cannot use way 2 of io.github.example/notes (MCP Bundle https://example.com/notes.mcpb): its MCP Bundle (mcpb) package gives no fileSha256", "install", registrytest.Several, "--as", "x", "--use", "2")
	h.fails(1, "has no package that runs with uvx", "install", registrytest.Several, "--as", "x", "--runtime", "uvx")
	h.fails(1, "way 4 of io.github.example/notes is the remote", "install", registrytest.Several, "--as", "x", "--use", "4", "--local")

	// At a terminal it asks, listing each way and what is not installed.
	code, out, errOut = h.runAtTerminal("5\n\n", "install", registrytest.Several, "--as", "asked")
	if code != 0 || !strings.Contains(errOut, "  3. oci package ghcr.io/example/notes-mcp, run with docker (docker is not installed here)\n") ||
		!strings.Contains(errOut, "Which one? [1] ") || strings.Contains(errOut, "mcpb") {
		t.Fatalf("at a terminal: %d\n%s%s", code, out, errOut)
	}
	if got := mustJSON(t, h.userEntries()["asked"]); got != `{"type":"sse","url":"https://notes.example.com/sse"}` {
		t.Errorf("the answer 5 installed %s", got)
	}
	if code, _, errOut := h.runAtTerminal("2\n", "install", registrytest.Several, "--as", "wrong"); code != 2 || !strings.Contains(errOut, `"2" is not one of the ways listed`) {
		t.Errorf("answering an unusable way: %d %s", code, errOut)
	}
}
