package egress

import (
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry"
)

func TestNormalHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"API.Example.COM.":     "api.example.com",
		" api.example.com ":    "api.example.com",
		"*.Example.com":        "*.example.com",
		"localhost:5432":       "localhost:5432",
		"[::1]:8080":           "[::1]:8080",
		"::1":                  "::1",
		"127.0.0.1":            "127.0.0.1",
		"api.example.com:8443": "api.example.com:8443",
	} {
		if got, err := NormalHost(in); err != nil || got != want {
			t.Errorf("NormalHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "https://api.example.com", "api example.com", "api.example.com:0", "api.example.com:99999",
		"*.com", "*.127.0.0.1", "a..b", "*", "exa$mple.com"} {
		if got, err := NormalHost(bad); err == nil {
			t.Errorf("NormalHost(%q) = %q, want an error", bad, got)
		}
	}
}

func TestAllows(t *testing.T) {
	t.Parallel()
	list := []string{"api.example.com", "*.weather.gov", "db.example.com:5432", "localhost:8080", "[::1]:9000", "10.0.0.5"}
	for _, tc := range []struct {
		d    dest
		want bool
	}{
		{dest{host: "api.example.com", port: 443}, true},
		{dest{host: "api.example.com", port: 80}, true},
		{dest{host: "api.example.com", port: 22}, false},
		{dest{host: "x.api.example.com", port: 443}, false},
		{dest{host: "forecast.weather.gov", port: 443}, true},
		{dest{host: "weather.gov", port: 443}, false},
		{dest{host: "evilweather.gov", port: 443}, false},
		{dest{host: "db.example.com", port: 5432}, true},
		{dest{host: "db.example.com", port: 443}, false},
		{dest{host: "localhost", port: 8080, local: true}, true},
		{dest{host: "localhost", port: 8081, local: true}, false},
		{dest{host: "::1", port: 9000, local: true}, true},
		// A bare address or name never lets anything local through.
		{dest{host: "10.0.0.5", port: 443, local: true}, false},
		{dest{host: "api.example.com", port: 443, local: true}, false},
		{dest{host: "forecast.weather.gov", port: 443, local: true}, false},
	} {
		if got := allows(list, tc.d); got != tc.want {
			t.Errorf("allows(%+v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

func TestLocalName(t *testing.T) {
	t.Parallel()
	m := thisMachine()
	for host, want := range map[string]bool{
		"localhost": true, "app.localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true, "0.0.0.0": true,
		"10.1.2.3": true, "192.168.1.1": true, "172.16.0.1": true, "169.254.169.254": true, "100.100.1.1": true,
		"fe80::1": true, "fd00::1": true, "::ffff:127.0.0.1": true,
		"8.8.8.8": false, "api.example.com": false, "2606:4700::1111": false,
	} {
		if got := m.localName(host); got != want {
			t.Errorf("localName(%q) = %v, want %v", host, got, want)
		}
	}
	if m.hostname != "" && !m.localName(m.hostname) {
		t.Errorf("this machine's name %q is not local", m.hostname)
	}
}

func TestDeclared(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		entry   *registry.ServerDetail
		want    []string
	}{
		{"npx", "npx", []string{"-y", "@modelcontextprotocol/server-everything"}, nil, []string{"registry.npmjs.org"}},
		{"npx by its path", "/home/p/.nvm/versions/node/v22/bin/npx", nil, nil, []string{"registry.npmjs.org"}},
		{"npx.cmd", `C:\Program Files\nodejs\npx.cmd`, nil, nil, []string{"registry.npmjs.org"}},
		{"uvx", "uvx", []string{"mcp-server-fetch"}, nil, []string{"pypi.org", "files.pythonhosted.org"}},
		{"uvx with an index", "uvx", []string{"--index-url", "https://pypi.corp.example/simple", "--default-index=https://mirror.example:8443/simple", "x"}, nil,
			[]string{"pypi.org", "files.pythonhosted.org", "pypi.corp.example"}},
		{"node", "node", []string{"server.js"}, nil, nil},
		{"python", "python3", []string{"-m", "server"}, nil, nil},
		{"docker", "docker", []string{"run", "-i", "--rm", "mcp/time"}, nil, []string{"registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com"}},
		{"registry entry", "npx", nil, &registry.ServerDetail{
			Packages: []registry.Package{
				{RegistryType: "npm", Identifier: "@x/weather"},
				{RegistryType: "pypi", Identifier: "weather"},
				{RegistryType: "oci", Identifier: "ghcr.io/x/weather"},
				{RegistryType: "npm", RegistryBaseURL: "https://npm.corp.example", Identifier: "@x/weather"},
			},
			Remotes: []registry.Remote{
				{Type: "streamable-http", URL: "https://api.weather.example/mcp"},
				{Type: "sse", URL: "https://{region}.weather.example/sse"},
				{Type: "streamable-http", URL: "http://localhost:3000/mcp"},
				{Type: "streamable-http", URL: "http://192.168.1.10/mcp"},
			},
		}, []string{"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "ghcr.io", "pkg-containers.githubusercontent.com", "npm.corp.example", "api.weather.example"}},
	} {
		if got := Declared(tc.command, tc.args, tc.entry); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Declared = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSpell(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{DefaultAskTimeout: "a minute", 2 * time.Minute: "2 minutes", 90 * time.Second: "90 seconds", 200 * time.Millisecond: "200ms"} {
		if got := spell(d); got != want {
			t.Errorf("spell(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestRefusalRing: refusals in a row to the same destination for the same
// reason are one record with a count; past the bound the oldest go.
func TestRefusalRing(t *testing.T) {
	t.Parallel()
	rs := refusals{max: 3, byServer: map[string][]Refusal{}}
	add := func(dest, reason string) bool {
		return rs.add(Refusal{Time: time.Now(), Server: "weather", Dest: dest, Reason: reason})
	}
	if !add("a.example", "you denied it") || add("a.example", "you denied it") || !add("a.example", "nobody answered") {
		t.Error("a new record, the same again, or another reason: wrong record made")
	}
	for _, d := range []string{"b.example", "c.example", "d.example"} {
		add(d, "you denied it")
	}
	got := rs.byServer["weather"]
	if len(got) != 3 || got[0].Dest != "b.example" || got[2].Dest != "d.example" || got[2].Count != 1 {
		t.Errorf("after six: %+v", got)
	}
	if len(rs.byServer["other"]) != 0 {
		t.Error("another server has records")
	}
}
