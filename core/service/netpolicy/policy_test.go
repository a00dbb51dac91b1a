package netpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
)

// home is a temporary home whose mcptray config file holds servers, read
// by a real config loader, with a policy attached to it as the service
// attaches itself.
type home struct {
	t      *testing.T
	paths  config.Paths
	loader *config.Loader
	policy *Policy
	proxy  egress.Options

	mu       sync.Mutex
	set      *config.Set
	asked    []egress.Question
	recorded []string
}

func newHome(t *testing.T, servers map[string]any) *home {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	paths, err := config.NewPaths("linux", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	paths.Enterprise = filepath.Join(dir, "etc", "managed.json")
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(paths.UserFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.UserFile(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := &home{t: t, paths: paths, loader: config.NewLoader(paths)}
	h.loader.Lookup = func(string) (string, bool) { return "", false }
	h.policy = New(Options{UserFile: paths.UserFile(), Ask: func(_ context.Context, q egress.Question) (egress.Reply, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.asked = append(h.asked, q)
		return egress.Reply{Answer: egress.AllowAlways, By: "the window"}, nil
	}})
	h.proxy = h.policy.ProxyOptions()
	return h
}

// attach gives the policy the config in use, a reload, and the record, as
// service.New does.
func (h *home) attach() {
	h.reload()
	h.policy.Attach(Service{
		Current: func() *config.Set { h.mu.Lock(); defer h.mu.Unlock(); return h.set },
		Reload:  h.reload,
		Changed: func() {},
		Record: func(_ context.Context, by string, action activity.TrustAction, target, detail string) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.recorded = append(h.recorded, by+": "+string(action)+" "+target+" "+detail)
		},
	})
}

func (h *home) reload() {
	set := h.loader.Load()
	if len(set.Problems) > 0 {
		h.t.Fatalf("the config has problems: %+v", set.Problems)
	}
	h.mu.Lock()
	h.set = set
	h.mu.Unlock()
}

func (h *home) asks() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.asked)
}

// weather is a server that installs from npm (declared: the npm registry)
// and whose own entry asks for its API's host.
func weather() map[string]any {
	return map[string]any{
		"command": "npx", "args": []string{"-y", "@acme/weather"},
		"mcptray": map[string]any{"sandbox": map[string]any{"hosts": []string{"api.weather.gov"}}},
	}
}

// TestHostsBeforeAttachNone: a proxy that asks the policy before the
// service attached (or of a server not configured) hears of no host, so
// nothing is let through on a list nobody made.
func TestHostsBeforeAttachNone(t *testing.T) {
	t.Parallel()
	h := newHome(t, map[string]any{"weather": weather()})
	if got := h.proxy.Hosts("weather"); len(got) != 0 {
		t.Errorf("before the service attached, weather may reach %q", got)
	}
	h.attach()
	if got := h.proxy.Hosts("weather"); !slices.Contains(got, "registry.npmjs.org") || !slices.Contains(got, "api.weather.gov") {
		t.Errorf("weather may reach %q; want its registry and the host its entry asks for", got)
	}
	for _, name := range []string{"nobody", "", "look at weather"} {
		if got := h.proxy.Hosts(name); len(got) != 0 {
			t.Errorf("%q, configured nowhere, may reach %q", name, got)
		}
	}
}

// TestLookReachesOnlyWhatItDeclaresUnasked: while mcptray only looks at a
// server's tools, the proxy lets it reach what its command declares and
// not the hosts its own entry asks for (the person has not approved it),
// and refuses anything else without a question, even with a window that
// would answer Always. A second look at the same server is refused; once
// the look ends, its name is no one's.
func TestLookReachesOnlyWhatItDeclaresUnasked(t *testing.T) {
	t.Parallel()
	h := newHome(t, map[string]any{"weather": weather()})
	h.attach()
	key, end, ok := h.policy.StartLook("weather")
	if !ok {
		t.Fatal("the first look was refused")
	}
	if got := h.proxy.Hosts(key); !slices.Equal(got, []string{"registry.npmjs.org"}) {
		t.Errorf("the look may reach %q; want only the npm registry its command declares", got)
	}
	reply, err := h.proxy.Ask(t.Context(), egress.Question{Server: key, Host: "evil.example", Port: 443, Dest: "evil.example"})
	if reply.Answer != egress.Deny || !errors.Is(err, egress.ErrNotAsked) {
		t.Errorf("a look's connection elsewhere: %v, %v; want refused unasked", reply.Answer, err)
	}
	if n := h.asks(); n != 0 {
		t.Errorf("the person was asked %d times about a look", n)
	}
	if _, _, ok := h.policy.StartLook("weather"); ok {
		t.Error("a second look at weather started while one runs")
	}
	end()
	if got := h.proxy.Hosts(key); len(got) != 0 {
		t.Errorf("after the look, %q may still reach %q", key, got)
	}
}

// TestServerNamedLikeALook: a configured server whose name is a look's
// name at the proxy gains nothing by it: while no look runs it is asked
// about as any server, and while a look at the server it names runs it
// gets only the look's narrower list.
func TestServerNamedLikeALook(t *testing.T) {
	t.Parallel()
	sly := weather()
	sly["mcptray"] = map[string]any{"sandbox": map[string]any{"hosts": []string{"exfil.example"}}}
	h := newHome(t, map[string]any{"weather": weather(), "look at weather": sly})
	h.attach()
	if got := h.proxy.Hosts("look at weather"); !slices.Contains(got, "exfil.example") {
		t.Errorf("with no look running, the server named %q may reach %q; want its own list", "look at weather", got)
	}
	if _, err := h.proxy.Ask(t.Context(), egress.Question{Server: "look at weather", Host: "other.example", Port: 443, Dest: "other.example"}); err != nil || h.asks() != 1 {
		t.Errorf("with no look running, its question: %v, asked %d times; want it asked", err, h.asks())
	}
	_, end, ok := h.policy.StartLook("weather")
	if !ok {
		t.Fatal("the look was refused")
	}
	defer end()
	if got := h.proxy.Hosts("look at weather"); slices.Contains(got, "exfil.example") || slices.Contains(got, "api.weather.gov") {
		t.Errorf("during a look at weather, the proxy's name for it may reach %q", got)
	}
}

// TestAlwaysKeptInTheConfigFile: the person's "Always" goes into the
// server's sandbox settings in mcptray's config file (read back by a new
// load, not kept in memory), is recorded with who said it, and is put to
// use at once.
func TestAlwaysKeptInTheConfigFile(t *testing.T) {
	t.Parallel()
	h := newHome(t, map[string]any{"weather": weather()})
	h.attach()
	if err := h.proxy.Remember("weather", "tiles.weather.gov", "the window"); err != nil {
		t.Fatal(err)
	}
	if got := h.proxy.Hosts("weather"); !slices.Contains(got, "tiles.weather.gov") {
		t.Errorf("after Always, weather may reach %q", got)
	}
	if got := config.NewLoader(h.paths).Load().Sandbox["weather"].Hosts; !slices.Contains(got, "tiles.weather.gov") {
		t.Errorf("the config file keeps weather's hosts as %q", got)
	}
	h.mu.Lock()
	rec := slices.Clone(h.recorded)
	h.mu.Unlock()
	if len(rec) != 1 || rec[0] != "the window: "+string(activity.SandboxAllowance)+" weather reach tiles.weather.gov" {
		t.Errorf("recorded %q", rec)
	}
}

// TestNoWindowRefusesAtOnce: with nobody to ask (mcptray serve), a host
// off a server's list is refused at once, with the word that says so.
func TestNoWindowRefusesAtOnce(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	reply, err := p.ProxyOptions().Ask(t.Context(), egress.Question{Server: "weather", Host: "evil.example", Port: 443, Dest: "evil.example"})
	if reply.Answer != egress.Deny || !errors.Is(err, egress.ErrNoWindow) {
		t.Errorf("with no window: %v, %v", reply.Answer, err)
	}
}
