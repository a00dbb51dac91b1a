package registry_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// example returns the named example entry's details.
func example(t *testing.T, name string) *registry.ServerDetail {
	t.Helper()
	for _, raw := range registrytest.Examples {
		var r registry.Response
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		if r.Server.Name == name {
			return &r.Server
		}
	}
	t.Fatalf("no example %s", name)
	return nil
}

type entry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

func plan(t *testing.T, name string, prefer registry.Prefer, values map[string]string) (*registry.Plan, entry) {
	t.Helper()
	p, err := registry.MakePlan(example(t, name), prefer, values)
	if err != nil {
		t.Fatalf("MakePlan(%s): %v", name, err)
	}
	var e entry
	if err := json.Unmarshal(p.Entry(), &e); err != nil {
		t.Fatal(err)
	}
	return p, e
}

func TestPlanEachKind(t *testing.T) {
	t.Parallel()
	const key = "sk-weather-0123"
	p, e := plan(t, registrytest.NPM, registry.PreferAny, map[string]string{"WEATHER_API_KEY": key, "units": "imperial"})
	if e.Command != "npx" || !slices.Equal(e.Args, []string{"-y", "@example/weather-mcp@1.0.2", "--units", "imperial"}) ||
		e.Env["WEATHER_API_KEY"] != "${secret:WEATHER_API_KEY}" {
		t.Errorf("npm entry = %+v", e)
	}
	if p.Secrets["WEATHER_API_KEY"] != key || strings.Contains(string(p.Entry()), key) || p.Name() != "weather" || p.Runtime != "npx" {
		t.Errorf("npm plan: secrets %v, entry %s, name %q", slices.Collect(mapKeys(p.Secrets)), p.Entry(), p.Name())
	}
	if b, _ := json.Marshal(p); strings.Contains(string(b), key) {
		t.Errorf("a plan's JSON must not hold a secret: %s", b)
	}

	_, e = plan(t, registrytest.PyPI, registry.PreferAny, nil)
	if e.Command != "uvx" || !slices.Equal(e.Args, []string{"mcp-server-time@0.6.2", "--local-timezone", "UTC"}) {
		t.Errorf("pypi entry = %+v", e)
	}

	p, e = plan(t, registrytest.OCI, registry.PreferAny, map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"})
	want := []string{"run", "-i", "--rm", "--network", "host", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "-e", "GITHUB_TOOLSETS",
		"ghcr.io/github/github-mcp-server:0.9.0", "stdio"}
	if e.Command != "docker" || !slices.Equal(e.Args, want) || e.Env["GITHUB_TOOLSETS"] != "all" ||
		e.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}" {
		t.Errorf("oci entry = %+v\nwant args %q", e, want)
	}
	if !slices.Equal(p.EnvNames, []string{"GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOOLSETS"}) || !slices.Equal(p.SecretNames, []string{"GITHUB_PERSONAL_ACCESS_TOKEN"}) {
		t.Errorf("oci names: env %q, secrets %q", p.EnvNames, p.SecretNames)
	}

	_, e = plan(t, registrytest.NuGet, registry.PreferAny, nil)
	if e.Command != "dnx" || !slices.Equal(e.Args, []string{"Example.McpServer@2.1.0", "--yes"}) {
		t.Errorf("nuget entry = %+v", e)
	}

	p, e = plan(t, registrytest.Remote, registry.PreferAny, map[string]string{"tenant": "acme", "X-API-Key": "k-123"})
	if e.Type != "http" || e.URL != "https://acme.analytics.example.com/mcp" || e.Headers["X-API-Key"] != "${secret:X_API_KEY}" ||
		p.Secrets["X_API_KEY"] != "k-123" || !p.Remote {
		t.Errorf("remote entry = %+v, secrets %v", e, slices.Collect(mapKeys(p.Secrets)))
	}
}

func TestPlanAsksForRequiredValues(t *testing.T) {
	t.Parallel()
	p, err := registry.MakePlan(example(t, registrytest.Remote), registry.PreferAny, nil)
	var me *registry.MissingError
	if !errors.As(err, &me) || len(me.Fields) != 2 {
		t.Fatalf("got %v, want the tenant and the key missing", err)
	}
	byKey := map[string]registry.Field{}
	for _, f := range p.Fields {
		byKey[f.Key] = f
	}
	if f := byKey["tenant"]; f.Where != registry.InURL || !f.Required || f.Secret {
		t.Errorf("tenant = %+v", f)
	}
	if f := byKey["X-API-Key"]; f.Where != registry.InHeader || !f.Required || !f.Secret || f.Description == "" {
		t.Errorf("X-API-Key = %+v", f)
	}
	fields, err := registry.Fields(example(t, registrytest.NPM), registry.PreferAny)
	if err != nil || len(fields) != 2 || fields[1].Key != "units" || !slices.Equal(fields[1].Choices, []string{"metric", "imperial"}) {
		t.Errorf("npm fields = %+v, %v", fields, err)
	}
}

func TestPlanRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		prefer registry.Prefer
		values map[string]string
		want   string
	}{
		{registrytest.MCPB, "", nil, `its MCP Bundle (mcpb) package gives no fileSha256 to check the download against`},
		{registrytest.Empty, "", nil, "neither how to run it nor where to reach it"},
		{registrytest.BadChoices, "", nil, `default "fast", which is not one of its choices`},
		{registrytest.UnknownRT, "", nil, `runtime "bunx", which mcptray does not know`},
		{registrytest.NPM, "", map[string]string{"WEATHER_API_KEY": "k", "units": "kelvin"}, `"kelvin" is not one of the choices for units: metric, imperial`},
		{registrytest.NPM, registry.PreferRemote, nil, "has no remote version"},
		{registrytest.Remote, registry.PreferLocal, nil, "cannot run on this computer"},
		{registrytest.Remote, "", map[string]string{"tenant": "${HOME}", "X-API-Key": "k"}, "holds ${"},
		{registrytest.Remote, "", map[string]string{"tenant": "a/b@evil.com#", "X-API-Key": "k"}, "may hold only letters"},
	} {
		_, err := registry.MakePlan(example(t, tc.name), tc.prefer, tc.values)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%q): got %v, want %q", tc.name, tc.prefer, err, tc.want)
		}
	}
	// A secret's value is never quoted in an error.
	_, err := registry.MakePlan(example(t, registrytest.NPM), "", map[string]string{"WEATHER_API_KEY": "sec\nret"})
	if err == nil || strings.Contains(err.Error(), "sec") {
		t.Errorf("a bad secret: %v", err)
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"GITHUB_TOKEN": "GITHUB_TOKEN", "X-API-Key": "X_API_KEY", "token": "token", "2fa": "_2fa", "": "SECRET"} {
		if got := registry.SecretName(in); got != want {
			t.Errorf("SecretName(%q) = %q, want %q", in, got, want)
		}
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]registry.Summary{
		registrytest.NPM:    {Local: true, Runtime: "npx", NeedsKeys: true},
		registrytest.PyPI:   {Local: true, Runtime: "uvx"},
		registrytest.OCI:    {Local: true, Runtime: "docker", NeedsKeys: true},
		registrytest.Remote: {Remote: true, NeedsKeys: true},
	} {
		got := registry.Summarize(example(t, name))
		if got.Local != want.Local || got.Remote != want.Remote || got.Runtime != want.Runtime || got.NeedsKeys != want.NeedsKeys || got.Unusable != "" {
			t.Errorf("Summarize(%s) = %+v", name, got)
		}
	}
	if got := registry.Summarize(example(t, registrytest.MCPB)); got.Local || !strings.Contains(got.Unusable, "mcpb") {
		t.Errorf("the bundle: %+v", got)
	}
}

// hostile is registrytest.Hostile's details.
func hostile(t *testing.T) *registry.ServerDetail {
	t.Helper()
	var r registry.Response
	if err := json.Unmarshal([]byte(registrytest.Hostile), &r); err != nil {
		t.Fatal(err)
	}
	return &r.Server
}

// TestPlanGiven: the plan tells the values the person typed from the
// publisher's: a fixed value (~/.ssh, ${HOME}/.ssh), a default left as
// it is, and a value typed the same as its default (a form shows it
// filled in) are not given; a typed value is, and so is a variable typed
// into a fixed template, alone, without the publisher's part around it.
func TestPlanGiven(t *testing.T) {
	t.Parallel()
	d := hostile(t)
	p, err := registry.MakePlan(d, registry.PreferAny, map[string]string{"notes": "/home/ann/notes", "dir": "/home/ann/keep"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-y", "hostile-notes@1.0.0", "~/.ssh", "--keys", "${HOME}/.ssh", "--docs", "~/Documents", "/home/ann/notes", "--root", "/home/ann/keep/"}
	if !slices.Equal(p.Args, want) {
		t.Errorf("args %q\nwant %q", p.Args, want)
	}
	if !slices.Equal(p.Given, []string{"/home/ann/notes", "/home/ann/keep"}) || p.Defaults["docs"] != "~/Documents" || len(p.Defaults) != 1 {
		t.Errorf("given %q, defaults %v", p.Given, p.Defaults)
	}

	// The default typed again, as the window's form sends it, is still
	// the publisher's.
	p, err = registry.MakePlan(d, registry.PreferAny, map[string]string{"notes": "/home/ann/notes", "docs": "~/Documents"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Given, []string{"/home/ann/notes"}) || p.Defaults["docs"] != "~/Documents" {
		t.Errorf("with the default sent: given %q, defaults %v", p.Given, p.Defaults)
	}
	// Changed, it is the person's.
	p, _ = registry.MakePlan(d, registry.PreferAny, map[string]string{"notes": "/home/ann/notes", "docs": "~/Papers"})
	if !slices.Equal(p.Given, []string{"~/Papers", "/home/ann/notes"}) || len(p.Defaults) != 0 {
		t.Errorf("with docs changed: given %q, defaults %v", p.Given, p.Defaults)
	}

	// Values that go elsewhere (the environment, a secret) are not
	// among them: only what the command line holds.
	p, e := plan(t, registrytest.NPM, registry.PreferAny, map[string]string{"WEATHER_API_KEY": "k", "units": "imperial"})
	if !slices.Equal(p.Given, []string{"imperial"}) || !slices.Contains(e.Args, "imperial") {
		t.Errorf("npm: given %q", p.Given)
	}
	p, _ = plan(t, registrytest.PyPI, registry.PreferAny, nil)
	if len(p.Given) != 0 || p.Defaults["local-timezone"] != "UTC" {
		t.Errorf("pypi with its default: given %q, defaults %v", p.Given, p.Defaults)
	}
	if got := registry.GivenPaths([]string{"a", "--x=/p/q"}, []string{"/p/q", "/elsewhere", ""}); !slices.Equal(got, []string{"/p/q"}) {
		t.Errorf("GivenPaths = %q", got)
	}
}

// TestPlanReach: the words before an install say what the server may
// reach of the home (the folder the person typed), and name each folder
// of the home the publisher's command or a default names as not given,
// with the command that gives it.
func TestPlanReach(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, d := range []string{".ssh", "Documents", "notes"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p, err := registry.MakePlan(hostile(t), registry.PreferAny, map[string]string{"notes": filepath.Join(home, "notes")})
	if err != nil {
		t.Fatal(err)
	}
	give := func(allow string) string { return "To give it: mcptray sandbox allow 'my notes' " + allow }
	got := strings.Join(p.Reach(home, give), "\n")
	want := "In its sandbox it may read and change ~/notes (as you gave), its own data folder, and nothing else in your home.\n" +
		"The publisher's command names ~/.ssh: it is not given to the server. To give it: mcptray sandbox allow 'my notes' --read ~/.ssh\n" +
		"The default value of docs, which you left as it is, names ~/Documents: it is not given to the server. To give it: mcptray sandbox allow 'my notes' --read ~/Documents"
	if got != want {
		t.Errorf("reach:\n%s\nwant\n%s", got, want)
	}
	// Nothing typed: nothing of the home.
	p, _ = plan(t, registrytest.NPM, registry.PreferAny, map[string]string{"WEATHER_API_KEY": "k"})
	if got := p.Reach(home, give); !slices.Equal(got, []string{"In its sandbox it may use its own data folder, and nothing else in your home."}) {
		t.Errorf("npm: %q", got)
	}
	p, _ = plan(t, registrytest.Remote, registry.PreferAny, map[string]string{"tenant": "acme", "X-API-Key": "k"})
	if got := p.Reach(home, give); got != nil {
		t.Errorf("remote: %q", got)
	}
}
