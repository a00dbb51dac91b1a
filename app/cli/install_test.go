package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry/registrytest"
	"github.com/mcptray/mcptray/core/service"
)

// runAtTerminal runs one command as if a person sat at a terminal, their
// answers on stdin.
func (h *home) runAtTerminal(stdin string, args ...string) (int, string, string) {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Env{
		Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Paths: &h.paths, Store: h.store, Interactive: true, Launcher: h.launcher, HTTP: h.http, BaseEnv: h.baseEnv,
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

// TestInstallGivesOnlyWhatYouTyped: a hostile registry entry whose
// command names ~/.ssh (as ~/.ssh and as ${HOME}/.ssh) and, by default,
// ~/Documents, beside the notes folder the person types, is installed;
// its sandbox then gives it ~/notes and nothing of ~/.ssh or ~/Documents.
// The confirmation says so before it is added, and says how to give what
// it names; that command gives it. Typed at the terminal, as asked, the
// folder is given the same.
func TestInstallGivesOnlyWhatYouTyped(t *testing.T) {
	h, reg := registryHome(t)
	reg.Put(registrytest.Hostile, registrytest.Published)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h.launcher = self
	h.write(".ssh/id", "PRIVATE KEY")
	h.write("Documents/plan.txt", "the plan")
	h.write("notes/todo.txt", "milk")
	notes, ssh, docs := filepath.Join(h.dir, "notes"), filepath.Join(h.dir, ".ssh"), filepath.Join(h.dir, "Documents")

	out := h.must("install", registrytest.HostileName, "--set", "notes="+notes)
	for _, want := range []string{
		"In its sandbox it may read and change ~/notes (as you gave), its own data folder, and nothing else in your home.\n",
		"The publisher's command names ~/.ssh: it is not given to the server. To give it: mcptray sandbox allow notes --read ~/.ssh\n",
		"The default value of docs, which you left as it is, names ~/Documents: it is not given to the server. To give it: mcptray sandbox allow notes --read ~/Documents\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, out)
		}
	}
	policy := func(name string) (service.Sandbox, []string) {
		t.Helper()
		var box service.Sandbox
		if err := json.Unmarshal([]byte(h.must("sandbox", name, "--json")), &box); err != nil {
			t.Fatal(err)
		}
		if box.Policy == nil {
			t.Fatal("no policy")
		}
		var home []string
		for _, p := range slices.Concat(box.Policy.Read, box.Policy.Write) {
			if p == ssh || p == docs || strings.HasPrefix(p, ssh+"/") || strings.HasPrefix(p, docs+"/") {
				home = append(home, p)
			}
		}
		return box, home
	}
	box, leaked := policy("notes")
	if len(leaked) > 0 {
		t.Errorf("the publisher's folders are given: %q\npolicy %+v", leaked, box.Policy)
	}
	if !slices.Contains(box.Policy.Write, notes) || !slices.Equal(box.Settings.Write, []string{"~/notes"}) || !box.Settings.ArgsGrantNothing {
		t.Errorf("the typed folder: write %q, settings %+v", box.Policy.Write, box.Settings)
	}
	// Its sandbox in words: what it may reach, then what its command
	// names that it is not given, each with the command that gives it.
	words := h.must("sandbox", "notes")
	given, withheld, _ := strings.Cut(words, "Named in its command, and not given (its publisher wrote the command, not you):\n")
	if strings.Contains(given, ".ssh") || strings.Contains(given, "Documents") || !strings.Contains(given, "~/notes") ||
		!strings.Contains(withheld, "  ~/.ssh: mcptray sandbox allow notes --read ~/.ssh\n") ||
		!strings.Contains(withheld, "  ~/Documents: mcptray sandbox allow notes --read ~/Documents\n") || strings.Contains(withheld, "~/notes") {
		t.Errorf("its sandbox in words:\n%s", words)
	}

	// The command the confirmation gave gives it, and it is taken back.
	h.must("sandbox", "allow", "notes", "--read", "~/.ssh")
	if box, _ := policy("notes"); !slices.Contains(box.Policy.Read, ssh) {
		t.Errorf("allowed, ~/.ssh is not given: %q", box.Policy.Read)
	}
	h.must("sandbox", "deny", "notes", "--read", "~/.ssh")
	h.must("sandbox", "deny", "notes", "--write", "~/notes")
	if box, leaked := policy("notes"); len(leaked) > 0 || slices.Contains(box.Policy.Write, notes) || !box.Settings.ArgsGrantNothing {
		t.Errorf("all taken back: given %q, write %q, settings %+v", leaked, box.Policy.Write, box.Settings)
	}

	// Asked at the terminal, the typed folder is the person's too.
	code, out, errOut := h.runAtTerminal(notes+"\ny\n", "install", registrytest.HostileName, "--as", "asked")
	if code != 0 || !strings.Contains(out, "may read and change ~/notes (as you gave)") {
		t.Fatalf("at a terminal: %d\n%s%s", code, out, errOut)
	}
	if box, leaked := policy("asked"); len(leaked) > 0 || !slices.Contains(box.Policy.Write, notes) {
		t.Errorf("asked: given %q, write %q", leaked, box.Policy.Write)
	}
}
