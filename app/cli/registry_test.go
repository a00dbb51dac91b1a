package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// runIn runs one command with stdin.
func (h *home) runIn(stdin string, args ...string) (int, string, string) {
	h.t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Env{
		Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Paths: &h.paths, Store: h.store, HTTP: h.http, BaseEnv: h.baseEnv,
		Lookup: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Now:    func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) },
	})
	return code, out.String(), errOut.String()
}

// registryHome is a home whose mcptray uses an in-repo registry, and whose
// PATH has npx and nothing else.
func registryHome(t *testing.T) (*home, *registrytest.Registry) {
	t.Helper()
	h := newHome(t)
	reg := registrytest.New(t)
	h.env["MCPTRAY_REGISTRY_URL"] = reg.URL
	bin := filepath.Join(h.dir, "bin")
	h.write("bin/npx", "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(filepath.Join(bin, "npx"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env["PATH"] = bin
	return h, reg
}

// filesHolding returns the files under dir that hold value.
func filesHolding(t *testing.T, dir, value string) []string {
	t.Helper()
	var found []string
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n++
		if bytes.Contains(b, []byte(value)) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("searched %d files under %s: %v", n, dir, err)
	}
	return found
}

// userEntries reads mcptray's config file's servers.
func (h *home) userEntries() map[string]map[string]any {
	h.t.Helper()
	u, err := config.ReadUserFile(h.paths.UserFile())
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for k, raw := range u.MCPServers {
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			h.t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func TestSearch(t *testing.T) {
	t.Parallel()
	h, reg := registryHome(t)
	out := h.must("search", "weather")
	for _, want := range []string{registrytest.NPM, "Weather forecasts and alerts", "local, runs with npx (installed) · needs a key",
		registrytest.MCPB, "cannot be installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("search weather lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, registrytest.Deprecated) {
		t.Errorf("a deprecated server is offered:\n%s", out)
	}
	var res struct {
		Servers []searchResult `json:"servers"`
	}
	if err := json.Unmarshal([]byte(h.must("search", "--json", "time")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Servers) != 1 || res.Servers[0].Name != registrytest.PyPI || res.Servers[0].Runtime != "uvx" || res.Servers[0].RuntimeInstalled {
		t.Errorf("search time --json = %+v", res.Servers)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".cache", "mcptray", "registry.json")); err != nil {
		t.Errorf("the catalogue is not in the cache folder: %v", err)
	}
	asked := len(reg.Requests())
	h.must("search", "remote")
	if len(reg.Requests()) != asked {
		t.Error("a second search within the hour asked the registry again")
	}
}

func TestSearchUnreachable(t *testing.T) {
	t.Parallel()
	h, reg := registryHome(t)
	reg.Close()
	h.fails(1, "cannot reach the registry at "+reg.URL, "search", "weather")
}

func TestInstallEachKind(t *testing.T) {
	t.Parallel()
	h, _ := registryHome(t)
	const key, token, apiKey = "sk-weather-5e3b1", "ghp_Token-7a0c2", "an-Analytics-Key-99"

	code, out, errOut := h.runIn(key+"\n", "install", registrytest.NPM, "--set", "units=imperial")
	if code != 0 {
		t.Fatalf("install npm: %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"Installing io.github.example/weather 1.0.2 (Weather) as weather:",
		"runs:        npx -y @example/weather-mcp@1.0.2 --units imperial", "in your keychain: WEATHER_API_KEY", "Added weather to"} {
		if !strings.Contains(out, want) {
			t.Errorf("install npm said no %q:\n%s", want, out)
		}
	}
	h.must("install", registrytest.PyPI)
	if code, out, errOut := h.runIn(token+"\n", "install", registrytest.OCI, "--as", "gh"); code != 0 || !strings.Contains(out, "Note: docker is not installed here") {
		t.Fatalf("install oci: %d\n%s%s", code, out, errOut)
	}
	h.must("install", registrytest.NuGet)
	if code, out, errOut := h.runIn(apiKey+"\n", "install", registrytest.Remote, "--set", "tenant=acme"); code != 0 ||
		!strings.Contains(out, "connects to: https://acme.analytics.example.com/mcp (http)") {
		t.Fatalf("install remote: %d\n%s%s", code, out, errOut)
	}

	got := h.userEntries()
	want := map[string]map[string]any{
		"weather": {"command": "npx", "args": []any{"-y", "@example/weather-mcp@1.0.2", "--units", "imperial"},
			"env": map[string]any{"WEATHER_API_KEY": "${secret:WEATHER_API_KEY}"}},
		"time": {"command": "uvx", "args": []any{"mcp-server-time@0.6.2", "--local-timezone", "UTC"}},
		"gh": {"command": "docker", "args": []any{"run", "-i", "--rm", "--network", "host", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN",
			"-e", "GITHUB_TOOLSETS", "ghcr.io/github/github-mcp-server:0.9.0", "stdio"},
			"env": map[string]any{"GITHUB_PERSONAL_ACCESS_TOKEN": "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}", "GITHUB_TOOLSETS": "all"}},
		"dotnet-tools": {"command": "dnx", "args": []any{"Example.McpServer@2.1.0", "--yes"}},
		"analytics": {"type": "http", "url": "https://acme.analytics.example.com/mcp",
			"headers": map[string]any{"X-API-Key": "${secret:X_API_KEY}"}},
	}
	for name, w := range want {
		if g, _ := json.Marshal(got[name]); string(g) != mustJSON(t, w) {
			t.Errorf("%s = %s\nwant %s", name, g, mustJSON(t, w))
		}
	}
	if len(got) != len(want) {
		t.Errorf("config has %d servers, want %d", len(got), len(want))
	}
	if n := h.store.Len(); n != 3 {
		t.Errorf("the keychain holds %d secrets, want 3", n)
	}
	for _, v := range []string{key, token, apiKey} {
		if files := filesHolding(t, h.dir, v); len(files) > 0 {
			t.Errorf("a secret is in %q", files)
		}
	}
	if out := h.must("secret", "list", "analytics"); out != "X_API_KEY\tset\n" {
		t.Errorf("secret list analytics = %q", out)
	}
}

func TestInstallRefusals(t *testing.T) {
	t.Parallel()
	h, _ := registryHome(t)
	h.must("add", "keep", "--", "true") // so the file exists to compare
	before, err := os.ReadFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code  int
		want  string
		stdin string
		args  []string
	}{
		{1, "deprecated in the registry: Use io.github.example/weather instead", "", []string{registrytest.Deprecated}},
		{1, `its MCP Bundle (mcpb) package gives no fileSha256 to check the download against`, "", []string{registrytest.MCPB}},
		{1, "neither how to run it nor where to reach it", "", []string{registrytest.Empty}},
		{1, `not one of its choices`, "", []string{registrytest.BadChoices}},
		{1, `runtime "bunx", which mcptray does not know`, "", []string{registrytest.UnknownRT}},
		{1, `"kelvin" is not one of the choices for units: metric, imperial`, "k\n", []string{registrytest.NPM, "--set", "units=kelvin"}},
		{1, "no value for WEATHER_API_KEY on stdin", "", []string{registrytest.NPM}},
		{1, "the server needs tenant (address variable: Your tenant's name); give it with --set tenant=", "", []string{registrytest.Remote}},
		{2, "X-API-Key is a secret", "", []string{registrytest.Remote, "--set", "tenant=a", "--set", "X-API-Key=pasted-secret"}},
		{2, "does not ask for colour", "", []string{registrytest.PyPI, "--set", "colour=red"}},
		{1, "no server called", "", []string{"io.github.nobody/none"}},
		{1, "you already have a server called \"keep\"", "k\n", []string{registrytest.NPM, "--as", "keep"}},
	} {
		code, out, errOut := h.runIn(tc.stdin, append([]string{"install"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("install %q: exit %d, stderr %q; want %d and %q\n%s", tc.args, code, errOut, tc.code, tc.want, out)
		}
		if strings.Contains(out+errOut, "pasted-secret") {
			t.Errorf("install %q printed the secret", tc.args)
		}
	}
	after, _ := os.ReadFile(h.paths.UserFile())
	if !bytes.Equal(before, after) || h.store.Len() != 0 {
		t.Errorf("a refused install wrote something: the keychain holds %d\n%s", h.store.Len(), after)
	}
}

// TestSecretEnv: a secret given to add --secret-env reaches the server's
// environment and no file; secret unset, list and set manage it.
func TestSecretEnv(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	const value, second = "ghp_FromStdin-31c8d", "ghp_Second-77e0a"
	if code, out, errOut := h.runIn(value+"\n", "add", "gh", "--secret-env", "GITHUB_TOKEN", "--", testServerBin, "-name", "gh"); code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	envOf := func() string {
		return h.must("call", "gh", "env", `{"name":"GITHUB_TOKEN"}`)
	}
	if got := envOf(); !strings.Contains(got, value) {
		t.Errorf("the server's GITHUB_TOKEN: %q", got)
	}
	if entry := h.userEntries()["gh"]; mustJSON(t, entry["env"]) != `{"GITHUB_TOKEN":"${secret:GITHUB_TOKEN}"}` {
		t.Errorf("config env = %v", entry["env"])
	}
	if files := filesHolding(t, h.dir, value); len(files) > 0 {
		t.Errorf("the secret is in %q", files)
	}
	if out := h.must("secret", "list", "gh"); out != "GITHUB_TOKEN\tset\n" {
		t.Errorf("secret list = %q", out)
	}
	h.must("secret", "unset", "gh", "GITHUB_TOKEN")
	code, out, _ := h.run("status")
	if code != 1 || !strings.Contains(out, "needs GITHUB_TOKEN — Enter it in mcptray, or run: mcptray secret set gh GITHUB_TOKEN") {
		t.Errorf("status without the secret: %d\n%s", code, out)
	}
	if code, out, errOut := h.runIn(second+"\n", "secret", "set", "gh", "GITHUB_TOKEN"); code != 0 || strings.Contains(out+errOut, second) {
		t.Fatalf("secret set: %d\n%s%s", code, out, errOut)
	}
	if got := envOf(); !strings.Contains(got, second) {
		t.Errorf("after secret set: %q", got)
	}
	for _, v := range []string{value, second} {
		if files := filesHolding(t, h.dir, v); len(files) > 0 {
			t.Errorf("a secret is in %q", files)
		}
	}

	// Never from the command line, and never echoed back.
	code, out, errOut := h.run("add", "x", "--secret-env", "K=pasted-secret", "--", "true")
	if code != 2 || strings.Contains(out+errOut, "pasted-secret") || !strings.Contains(errOut, "takes a name only") {
		t.Errorf("--secret-env K=V: %d %q %q", code, out, errOut)
	}
	h.fails(1, "no value for K on stdin", "add", "x", "--secret-env", "K", "--", "true")
	h.fails(2, "is not an option here", "secret", "set", "gh", "GITHUB_TOKEN", "--value=x")
	h.fails(1, "has no secret called NOPE", "secret", "set", "gh", "NOPE")
	if _, ok := h.userEntries()["x"]; ok {
		t.Error("a refused add wrote its server")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestListFlagsPlainTextKeys: an imported server that holds a key in its
// file is flagged; one that refers to the environment or the keychain is
// not; the value is never printed.
func TestListFlagsPlainTextKeys(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.write(".config/Claude/claude_desktop_config.json", `{"mcpServers": {
		"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
		           "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_PlainText-0b9d", "LOG_LEVEL": "info"}},
		"brave": {"command": "npx", "args": ["-y", "brave"], "env": {"BRAVE_API_KEY": "${BRAVE_API_KEY:-none}"}}}}`)
	out := h.must("list")
	if !strings.Contains(out, "github (~/.config/Claude/claude_desktop_config.json) holds a key in plain text: GITHUB_PERSONAL_ACCESS_TOKEN") {
		t.Errorf("list does not flag github's key:\n%s", out)
	}
	if strings.Contains(out, "brave (") || strings.Contains(out, "ghp_PlainText") || strings.Contains(out, "LOG_LEVEL") {
		t.Errorf("list flags too much, or shows the value:\n%s", out)
	}
	l := h.list()
	if s, _ := l.server("github"); len(s.PlainKeys) != 1 || s.PlainKeys[0] != "GITHUB_PERSONAL_ACCESS_TOKEN" {
		t.Errorf("list --json plainKeys = %q", s.PlainKeys)
	}
}
