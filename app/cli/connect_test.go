package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// testServerBin is the in-repo MCP test server, built once for all tests.
var testServerBin string

// TestMain runs the tests or, run as "TEST-BINARY sandbox-exec …", is the
// sandbox's launcher, as mcptray is (sandbox_test.go), and as
// "TEST-BINARY sandbox-probe …" the sandbox check's probe.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "sandbox-exec" || os.Args[1] == "sandbox-probe") {
		os.Exit(Run(context.Background(), os.Args[1:], Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin}))
	}
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", testsAtOnce); err != nil {
			panic(err)
		}
	}
	os.Exit(mcpserver.RunTests(m, &testServerBin))
}

// testsAtOnce is how many tests run side by side unless -parallel says
// otherwise. Go's default is one a core, but the three tests that publish
// to the registry wait for their turn at it (npmtest.Start) in those
// places: on two cores, two of them kept every other test waiting. With
// room for all three, and two more, the others run beside them.
const testsAtOnce = "5"

// testServerTools is how many tools the test server offers with no flags.
var testServerTools = len(mcpserver.New(mcpserver.Options{}).ListTools())

// addTestServer adds the test server to h's config as name, with flags.
func (h *home) addTestServer(name string, flags ...string) {
	h.t.Helper()
	h.must(append([]string{"add", name, "--", testServerBin, "-name", name}, flags...)...)
}

// statusRow is one line of the status table.
type statusRow struct {
	state string
	tools int
	err   string
}

// statusTable reads status's table by server name.
func statusTable(t *testing.T, out string) map[string]statusRow {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || strings.Join(strings.Fields(lines[0]), " ") != "NAME STATE TOOLS WHY" {
		t.Fatalf("status has no header:\n%s", out)
	}
	rows := map[string]statusRow{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) < 3 {
			t.Fatalf("status line %q has too few columns:\n%s", l, out)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("status line %q: tools %q is not a number", l, f[2])
		}
		rows[f[0]] = statusRow{state: f[1], tools: n, err: strings.Join(f[3:], " ")}
	}
	return rows
}

func TestStatus(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")
	// A program that is not there fails at once, so status does not wait.
	h.must("add", "gone", "--", "mcptray-no-such-program")

	// gone is not connected, so status fails for scripts to notice.
	code, out, errOut := h.run("status")
	if code != 1 || errOut != "mcptray status: 1 server is not connected\n" {
		t.Fatalf("status: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 saying one server is not connected", code, out, errOut)
	}
	rows := statusTable(t, out)
	if r := rows["test"]; r != (statusRow{state: "connected", tools: testServerTools}) {
		t.Errorf("test = %+v, want connected with %d tools:\n%s", r, testServerTools, out)
	}
	if r := rows[service.BuiltinName]; r.state != "connected" || r.tools != 1 || r.err != "" {
		t.Errorf("the built-in server = %+v, want connected with 1 tool:\n%s", r, out)
	}
	r := rows["gone"]
	if r.state != "failed" || r.tools != 0 || !strings.Contains(r.err, "mcptray-no-such-program is not installed, or not on your PATH") {
		t.Errorf("gone = %+v, want failed saying the program was not found:\n%s", r, out)
	}
	// A person sees plain words, not Go's.
	for _, junk := range []string{"%!", "&{", "exec:", "<nil>"} {
		if strings.Contains(r.err, junk) {
			t.Errorf("gone's error %q holds %q", r.err, junk)
		}
	}
	if len(rows) != 3 {
		t.Errorf("status shows %d servers, want 3:\n%s", len(rows), out)
	}
}

// TestStatusJSON pins the field names of status --json: scripts rely on
// them, so fields may be added but never renamed or removed.
func TestStatusJSON(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")
	h.must("add", "gone", "--", "mcptray-no-such-program")

	code, out, _ := h.run("status", "--json")
	if code != 1 {
		t.Errorf("status --json: exit %d with a failed server, want 1", code)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	if keys := slices.Sorted(maps.Keys(top)); !slices.Equal(keys, []string{"servers"}) {
		t.Errorf("top-level fields = %q, want [servers]", keys)
	}
	var servers []map[string]any
	if err := json.Unmarshal(top["servers"], &servers); err != nil {
		t.Fatalf("servers: %v\n%s", err, out)
	}
	byName := map[string]map[string]any{}
	for _, s := range servers {
		want := []string{"name", "scope", "since", "state", "tools", "transport"}
		for _, k := range []string{"error", "fix"} {
			if _, ok := s[k]; ok {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		if keys := slices.Sorted(maps.Keys(s)); !slices.Equal(keys, want) {
			t.Errorf("server fields = %q, want %q", keys, want)
		}
		since, _ := s["since"].(string)
		if _, err := time.Parse(time.RFC3339, since); err != nil {
			t.Errorf("since %q is not RFC 3339: %v", since, err)
		}
		name, _ := s["name"].(string)
		byName[name] = s
	}
	for name, want := range map[string]map[string]any{
		"test":              {"scope": "user", "transport": "stdio", "state": "connected", "tools": float64(testServerTools)},
		service.BuiltinName: {"scope": "dynamic", "transport": "in-process", "state": "connected", "tools": float64(1)},
		"gone":              {"scope": "user", "transport": "stdio", "state": "failed", "tools": float64(0)},
	} {
		got, ok := byName[name]
		if !ok {
			t.Errorf("status --json lacks %s:\n%s", name, out)
			continue
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got[k], v)
			}
		}
	}
	if e, _ := byName["gone"]["error"].(string); !strings.Contains(e, "is not installed") {
		t.Errorf("gone's error = %q", e)
	}
	if len(servers) != 3 {
		t.Errorf("status --json has %d servers, want 3:\n%s", len(servers), out)
	}
}

func TestStatusUsage(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.fails(2, "status takes no names", "status", "test")
	// With no servers configured, the built-in one is still there.
	if rows := statusTable(t, h.must("status")); len(rows) != 1 || rows[service.BuiltinName].state != "connected" {
		t.Errorf("status of an empty home = %+v", rows)
	}
}

func TestTools(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")

	out := h.must("tools", "test")
	if !strings.HasPrefix(out, "TOOL") {
		t.Errorf("tools has no header:\n%s", out)
	}
	for _, want := range []string{"echo", "read-only", "Returns its text argument.", "raw_schema", "crash"} {
		if !strings.Contains(out, want) {
			t.Errorf("tools lacks %q:\n%s", want, out)
		}
	}

	var list struct{ Tools []tools.Tool }
	out = h.must("tools", "--json", "test")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools --json is not JSON: %v\n%s", err, out)
	}
	if len(list.Tools) != testServerTools {
		t.Errorf("tools --json lists %d tools, want %d", len(list.Tools), testServerTools)
	}
	i := slices.IndexFunc(list.Tools, func(t tools.Tool) bool { return t.Name == "raw_schema" })
	if i < 0 {
		t.Fatalf("tools --json lacks raw_schema:\n%s", out)
	}
	raw := list.Tools[i]
	// The schema is indented with the rest of the output, but every key is
	// there, in the server's order.
	var schema bytes.Buffer
	if err := json.Compact(&schema, raw.InputSchema); err != nil {
		t.Fatal(err)
	}
	if schema.String() != mcpserver.RawSchema {
		t.Errorf("raw_schema's inputSchema =\n%s\nwant\n%s", schema.String(), mcpserver.RawSchema)
	}
	if raw.Server != "test" || raw.QualifiedName == "" {
		t.Errorf("raw_schema = %+v", raw)
	}
}

// TestToolsJSONAfterName: --json may come where the synopsis puts it, after
// the server, as well as before it.
func TestToolsJSONAfterName(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")
	before := h.must("tools", "--json", "test")
	if code, after, errOut := h.run("tools", "test", "--json"); code != 0 || after != before {
		t.Errorf("tools test --json: exit %d\nstdout: %s\nstderr: %s\nwant what tools --json test prints", code, after, errOut)
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")
	for _, tc := range []struct {
		name          string
		args          []string
		code          int
		stdout        string // the whole of stdout
		stderr        string // a part of stderr
		stderrIsEmpty bool
	}{
		{"echo", []string{"test", "echo", `{"text": "hello, world"}`}, 0, "hello, world\n", "", true},
		{"numbers", []string{"test", "add", `{"a": 2, "b": 3.5}`}, 0, "5.5\n", "", true},
		{"no arguments", []string{"test", "roots"}, 0, "[]\n", "", true},
		// raw_schema answers with the arguments it was given.
		{"empty arguments", []string{"test", "raw_schema"}, 0, "{}\n", "", true},
		// echo without its text answers with isError.
		{"tool error", []string{"test", "echo", `{}`}, 1, "required argument \"text\" not found\n", "mcptray call: the tool reported an error", false},
		{"crash", []string{"test", "crash"}, 1, "", "calling crash on test:", false},
		{"unknown tool", []string{"test", "nope"}, 1, "", "calling nope on test:", false},
		{"bad JSON", []string{"test", "echo", `{"text":`}, 2, "", "the arguments must be a JSON object", false},
		{"not an object", []string{"test", "echo", `["hello"]`}, 2, "", "the arguments must be a JSON object", false},
		{"no tool", []string{"test"}, 2, "", "usage: mcptray call SERVER|URL TOOL [JSON]", false},
		{"unknown server", []string{"ghost", "echo"}, 1, "", `there is no server called "ghost"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := h.run(append([]string{"call"}, tc.args...)...)
			if code != tc.code || out != tc.stdout || !strings.Contains(errOut, tc.stderr) || (tc.stderrIsEmpty && errOut != "") {
				t.Errorf("call %q: exit %d\nstdout: %q\nstderr: %q\nwant exit %d, stdout %q, stderr with %q",
					tc.args, code, out, errOut, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestCallNullArguments: JSON null is not an object, and must never reach
// a server as its arguments, which servers validate as an object.
func TestCallNullArguments(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.addTestServer("test")
	code, out, errOut := h.run("call", "test", "raw_schema", "null")
	refused := code == 2 && strings.Contains(errOut, "the arguments must be a JSON object")
	sentEmpty := code == 0 && out == "{}\n"
	if !refused && !sentEmpty {
		t.Errorf("call test raw_schema null: exit %d\nstdout: %q\nstderr: %q\nwant a usage error, or {} sent as the arguments", code, out, errOut)
	}
}

func TestToolsUsage(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tools"}, 2, "name one server, or give a URL"},
		{[]string{"tools", "a", "b"}, 2, "name one server, or give a URL"},
		{[]string{"tools", "--yaml", "a"}, 2, "usage: mcptray tools"},
		{[]string{"tools", "ghost"}, 1, `there is no server called "ghost"; mcptray list shows them all`},
	} {
		h.fails(tc.code, tc.want, tc.args...)
	}
}

// TestToolsAndCallByURL reaches a server by its URL without adding it.
func TestToolsAndCallByURL(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	url := serveTest(t, mcpserver.Options{Name: "remote"})

	out := h.must("tools", url)
	for _, want := range []string{"echo", "raw_schema"} {
		if !strings.Contains(out, want) {
			t.Errorf("tools %s lacks %q:\n%s", url, want, out)
		}
	}
	var list struct{ Tools []tools.Tool }
	if err := json.Unmarshal([]byte(h.must("tools", "--json", url)), &list); err != nil || len(list.Tools) != testServerTools {
		t.Errorf("tools %s --json: %d tools, %v", url, len(list.Tools), err)
	}
	if out := h.must("call", url, "echo", `{"text": "over http"}`); out != "over http\n" {
		t.Errorf("call %s echo = %q", url, out)
	}
	h.fails(1, "the tool reported an error", "call", url, "echo", "{}")
	// Nothing was added.
	if l := h.list(); len(l.Servers) != 0 {
		t.Errorf("calling by URL added a server: %+v", l.Servers)
	}
}

// serveTest runs the test server over streamable HTTP in this process.
func serveTest(t *testing.T, opts mcpserver.Options) string {
	return mcpserver.ServeTest(t, opts, "http")
}
