package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
)

// TestSandboxCommand: mcptray sandbox shows what a server may do, allow
// and deny change it through mcptray (which writes its config), off and on
// switch it; bad calls are refused with a usage error.
func TestSandboxCommand(t *testing.T) {
	h := newHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h.launcher = self
	h.addTestServer("notes")
	out := h.must("sandbox", "notes")
	// mcptray's egress proxy runs, so the network is protected where
	// Landlock has TCP rules (ABI 4).
	level, words := "notes: files and network protected", "Nothing else in your home."
	if sandbox.ABI() < 4 {
		level = "notes: files protected, network not"
	}
	if sandbox.ABI() < 1 { // a kernel without Landlock (a CI runner's, say)
		level, words = "notes: not protected: this system's kernel has no Landlock", "It runs without a sandbox"
	}
	// What environment it gets, by name.
	for _, want := range []string{level, words, "\nEnvironment: ", "PATH", " of yours"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcptray sandbox notes lacks %q:\n%s", want, out)
		}
	}
	if out := h.must("sandbox", "allow", "notes", "--read", "~/Documents"); !strings.Contains(out, "notes may now read ~/Documents") {
		t.Errorf("allow: %q", out)
	}
	h.must("sandbox", "allow", "notes", "--host=api.github.com")
	var box service.Sandbox
	if err := json.Unmarshal([]byte(h.must("sandbox", "notes", "--json")), &box); err != nil {
		t.Fatal(err)
	}
	if len(box.Settings.Read) != 1 || box.Settings.Read[0] != "~/Documents" || len(box.Settings.Hosts) != 1 {
		t.Errorf("settings after allow: %+v", box.Settings)
	}
	if box.Policy == nil || !slices.Contains(box.Policy.Read, "/usr") || !slices.Contains(box.Policy.Read, filepath.Join(h.dir, "Documents")) {
		t.Errorf("--json lacks the full policy: %+v", box.Policy)
	}
	if out := h.must("sandbox", "notes"); !strings.Contains(out, "may read ~/Documents (mcptray sandbox deny notes --read ~/Documents)") {
		t.Errorf("the grant and its deny command:\n%s", out)
	}
	h.must("sandbox", "deny", "notes", "--read", "~/Documents")
	// Other programs' sockets only as a grant in words, and taken back.
	if out := h.must("sandbox", "allow", "notes", "--sockets"); !strings.Contains(out, "notes may now use other programs' sockets") || !strings.Contains(out, "anything you can") {
		t.Errorf("allow --sockets: %q", out)
	}
	if out := h.must("sandbox", "notes"); !strings.Contains(out, "(mcptray sandbox deny notes --sockets)") || (sandbox.ABI() > 0 && !strings.Contains(out, "it may connect to other programs' sockets")) {
		t.Errorf("the sockets grant and its deny command:\n%s", out)
	}
	box = service.Sandbox{}
	if err := json.Unmarshal([]byte(h.must("sandbox", "notes", "--json")), &box); err != nil {
		t.Fatal(err)
	}
	if !box.Settings.Sockets || box.Policy == nil || !box.Policy.Sockets {
		t.Errorf("after allow --sockets: settings %+v, policy %+v", box.Settings, box.Policy)
	}
	h.must("sandbox", "deny", "notes", "--sockets")
	h.fails(1, "nothing to take back", "sandbox", "deny", "notes", "--sockets")
	h.fails(2, "one thing at a time", "sandbox", "allow", "notes", "--sockets", "--port", "80")
	h.must("sandbox", "off", "notes")
	if out := h.must("sandbox", "notes"); !strings.Contains(out, "runs without a sandbox") || !strings.Contains(out, "mcptray sandbox on notes") {
		t.Errorf("off:\n%s", out)
	}
	h.must("sandbox", "on", "notes")
	box = service.Sandbox{}
	if err := json.Unmarshal([]byte(h.must("sandbox", "notes", "--json")), &box); err != nil {
		t.Fatal(err)
	}
	if box.Off || len(box.Settings.Read) != 0 || box.Protection.Files != (sandbox.ABI() > 0) {
		t.Errorf("after deny and on: %+v", box)
	}
	// mcptray status connects it, through this test binary as mcptray
	// sandbox-exec (TestMain).
	if out := h.must("status"); !strings.Contains(out, "notes") {
		t.Errorf("status:\n%s", out)
	}
	h.fails(2, "--port takes a TCP port", "sandbox", "allow", "notes", "--port", "http")
	h.fails(2, "one thing at a time", "sandbox", "allow", "notes", "--read", "/a", "--port", "80")
	h.fails(1, "not a full path", "sandbox", "allow", "notes", "--read", "Documents")
	h.fails(1, "no server called", "sandbox", "ghost")
	if help := h.must("help"); strings.Contains(help, "sandbox-exec") || !strings.Contains(help, "sandbox allow|deny") {
		t.Errorf("help lists the hidden launcher, or not the sandbox command:\n%s", help)
	}
	h.fails(2, "mcptray's own launcher", "sandbox-exec")
}

// TestSandboxDenyAskedByFile: a host, a port or a folder that a project's
// .mcp.json asks for cannot be taken back with mcptray sandbox deny: it
// says so in plain words, with how to change the file, and changes
// nothing; mcptray sandbox shows those grants as the entry's. Denying
// what was never allowed says so too.
func TestSandboxDenyAskedByFile(t *testing.T) {
	h := newHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h.launcher = self
	proj := filepath.Join(h.dir, "proj")
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"theirs": map[string]any{
		"command": testServerBin, "args": []string{"-name", "theirs"},
		"mcptray": map[string]any{"sandbox": map[string]any{"read": []string{"./data"}, "hosts": []string{"api.example.com"}, "ports": []int{5432}}},
	}}})
	h.write("proj/.mcp.json", string(entry))
	h.must("folders", "add", proj)
	h.must("approve", "theirs")

	for _, deny := range [][]string{{"--host", "api.example.com"}, {"--host", "API.example.com."}, {"--port", "5432"}, {"--read", "~/proj/data"}} {
		args := append([]string{"sandbox", "deny", "theirs"}, deny...)
		code, out, errOut := h.run(args...)
		if code != 1 || out != "" {
			t.Errorf("%q: exit %d, said %q; want 1 and nothing on stdout", args, code, out)
		}
		for _, want := range []string{"because its project's file asks for it, so mcptray cannot take it back", "then approve theirs again", "~/proj/.mcp.json"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%q: %q lacks %q", args, errOut, want)
			}
		}
	}
	var box service.Sandbox
	if err := json.Unmarshal([]byte(h.must("sandbox", "theirs", "--json")), &box); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(box.Settings, box.Asked) || !slices.Equal(box.Settings.Hosts, []string{"api.example.com"}) {
		t.Errorf("after the refused denials, settings %+v, asked %+v", box.Settings, box.Asked)
	}
	out := h.must("sandbox", "theirs")
	for _, want := range []string{"may reach api.example.com (its entry asks for it)", "may connect to port 5432 (its entry asks for it)",
		"To take back what its entry asks for, edit the \"mcptray\": {\"sandbox\": …} part of theirs's entry in its project's file (~/proj/.mcp.json)"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcptray sandbox theirs lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sandbox deny theirs") {
		t.Errorf("mcptray sandbox offers a deny that would do nothing:\n%s", out)
	}

	// Nor is what nobody allowed, or what its runtime declares, taken
	// back in words only.
	h.fails(1, "You did not let theirs reach api.other.example, so there is nothing to take back; mcptray sandbox theirs lists what it may do.",
		"sandbox", "deny", "theirs", "--host", "api.other.example")
	h.must("sandbox", "allow", "theirs", "--write", "~/notes")
	h.fails(1, "theirs may read and change ~/notes: mcptray sandbox deny theirs --write ~/notes takes that back.", "sandbox", "deny", "theirs", "--read", "~/notes")
	h.must("add", "pkg", "--", "npx", "-y", "some-mcp-package")
	h.fails(1, "pkg may reach registry.npmjs.org because its runtime installs its packages from there", "sandbox", "deny", "pkg", "--host", "registry.npmjs.org")
}

// TestSandboxDenyInAnySpelling: a folder allowed as ~/Documents and taken
// back as its full path with a trailing slash (as a shell completes it) is
// gone from what the server may read; a relative path is refused in words.
func TestSandboxDenyInAnySpelling(t *testing.T) {
	h := newHome(t)
	h.addTestServer("notes")
	docs := filepath.Join(h.dir, "Documents")
	if err := os.MkdirAll(docs, 0o700); err != nil {
		t.Fatal(err)
	}
	h.must("sandbox", "allow", "notes", "--read", "~/Documents")
	h.must("sandbox", "allow", "notes", "--read", "$HOME/Documents")
	if out := h.must("sandbox", "deny", "notes", "--read", docs+"/"); !strings.Contains(out, "notes may no longer read") {
		t.Errorf("deny: %q", out)
	}
	var box service.Sandbox
	if err := json.Unmarshal([]byte(h.must("sandbox", "notes", "--json")), &box); err != nil {
		t.Fatal(err)
	}
	if len(box.Settings.Read) != 0 || box.Policy == nil || slices.Contains(box.Policy.Read, docs) {
		t.Errorf("after deny it may still read %s: %+v, %v", docs, box.Settings, box.Policy)
	}
	h.fails(1, `"Documents" is not a full path: give it from / or ~/`, "sandbox", "allow", "notes", "--read", "Documents")
}

// TestSandboxWordsWithoutNamespaces: where the computer does not let
// mcptray give a server a network of its own (simulated), the words say
// what is left open, and not that the proxy is all it can reach.
func TestSandboxWordsWithoutNamespaces(t *testing.T) {
	if sandbox.ABI() < 4 {
		t.Skip("this kernel's Landlock has no TCP rules")
	}
	for _, tc := range []struct {
		env, want, not string
	}{
		{"1", "could be reached: this system does not let mcptray give it a network of its own", "a network of its own, where"},
		{"", "it runs in a network of its own", "could be reached"},
	} {
		t.Setenv("MCPTRAY_SANDBOX_NO_NAMESPACES", tc.env)
		h := newHome(t)
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		h.launcher = self
		if tc.env == "" && !sandbox.Isolation(self) {
			continue // this computer has no namespaces to give
		}
		h.addTestServer("notes")
		out := h.must("sandbox", "notes")
		if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
			t.Errorf("MCPTRAY_SANDBOX_NO_NAMESPACES=%q: mcptray sandbox notes says\n%s", tc.env, out)
		}
	}
}

// TestSandboxCheckCommand: mcptray sandbox check says, a line a door and
// grouped by kind of server, that every door held, and --json says the
// same; with no probe to run it fails and says why; it takes nothing but
// --json.
func TestSandboxCheckCommand(t *testing.T) {
	if sandbox.ABI() < 6 || !sandbox.SeccompSupported() {
		t.Skip("the check needs Landlock 6 and a system call filter here")
	}
	defer sandbox.SetLastCheck(sandbox.LastCheck())
	h := newHome(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h.launcher = self
	if code, out, errOut := h.run("sandbox", "check"); code != 1 || !strings.Contains(out, "could not check its sandbox") || !strings.Contains(errOut, "not every door held") {
		t.Errorf("with no probe: exit %d\n%s\n%s", code, out, errOut)
	}
	h.probe = []string{self, sandbox.ProbeArg}
	out := h.must("sandbox", "check")
	for _, want := range []string{"Every door held on this computer", "A local server, through mcptray's proxy (", "A project's server", "A local server while mcptray's proxy is off",
		"\n  held:   read your SSH keys (~/.ssh)\n", "\n  works:  reach mcptray's proxy\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcptray sandbox check lacks %q:\n%s", want, out)
		}
	}
	var r sandbox.Report
	if err := json.Unmarshal([]byte(h.must("sandbox", "check", "--json")), &r); err != nil || !r.Held() || len(r.Kinds) != len(sandbox.Kinds) {
		t.Errorf("--json: %v, %+v", err, r)
	}
	h.fails(2, "sandbox check takes only --json", "sandbox", "check", "--all")
}
