package window

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// testClock is a clock tests move forward.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// useRegistry has the harness's running mcptray search the registry at
// base, keeping its copy under the cache folder cacheHome, on clock; only
// the runtimes named are installed.
func useRegistry(t *testing.T, h *harness, base, cacheHome string, clock *testClock, runtimes ...string) {
	t.Helper()
	svc := catalogueService(t, base, cacheHome, clock)
	h.b.mu.Lock()
	h.b.catalogue = svc
	h.b.mu.Unlock()
	withRuntimes(h.v, runtimes...)
}

// withRuntimes has v find only the runtimes named, and search as soon as
// the typing pauses.
func withRuntimes(v *window, runtimes ...string) {
	v.do(func() {
		v.installed = func(p string) bool { return slices.Contains(runtimes, p) }
		v.catalogueDelay = time.Millisecond
	})
}

// catalogueService is a service, not started, that searches the registry
// at base as the running mcptray does, with its copy under cacheHome: the
// real SearchCatalogue behind the fake backend.
func catalogueService(t *testing.T, base, cacheHome string, clock *testClock) *service.Service {
	t.Helper()
	home := t.TempDir()
	lookup := registryLookup(base, home, cacheHome)
	p, err := config.NewPaths("linux", lookup)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Paths: p, Store: secrettest.New(), Lookup: lookup, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// registryLookup is an environment that names the registry at base, home
// and the cache folder cacheHome.
func registryLookup(base, home, cacheHome string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		switch k {
		case registry.EnvURL:
			return base, true
		case "HOME":
			return home, true
		case "XDG_CACHE_HOME":
			return cacheHome, true
		}
		return "", false
	}
}

// withRegistry has the real running mcptray search the registry at base,
// keeping its copy in the temporary home's cache folder.
func withRegistry(base string) realOption {
	return func(r *real, o *service.Options) {
		o.Lookup = registryLookup(base, r.dir, filepath.Join(r.dir, ".cache"))
	}
}

// waitFor waits until ok holds, checked on the UI goroutine each time the
// window settles some work.
func (h *harness) waitFor(what string, ok func() bool) {
	h.t.Helper()
	deadline := time.After(realDeadline)
	for {
		var done bool
		h.v.do(func() { done = ok() })
		if done {
			return
		}
		select {
		case <-h.events:
		case <-deadline:
			h.t.Fatalf("waited %s for %s", realDeadline, what)
		}
	}
}

// entryNames are the names the catalogue lists.
func entryNames(c *catalogueView) []string {
	var out []string
	for _, e := range c.entries {
		out = append(out, e.resp.Server.Name)
	}
	return out
}

// badgeTexts are the badges the catalogue shows for name.
func badgeTexts(c *catalogueView, name string) []string {
	for _, e := range c.entries {
		if e.resp.Server.Name == name {
			var out []string
			for _, b := range e.badges {
				out = append(out, b.text)
			}
			return out
		}
	}
	return nil
}

// pick chooses name in the catalogue's list.
func pick(t *testing.T, c *catalogueView, name string) {
	t.Helper()
	i := slices.Index(entryNames(c), name)
	if i < 0 {
		t.Fatalf("the catalogue does not list %s: %q", name, entryNames(c))
	}
	c.list.Select(i)
}

// installFieldOf returns the install form's field for key.
func installFieldOf(t *testing.T, f *installForm, key string) *installField {
	t.Helper()
	for _, fl := range f.fields {
		if fl.f.Key == key {
			return fl
		}
	}
	t.Fatalf("the form has no field %s", key)
	return nil
}

// TestCatalogueSearchAndBadges: the Add… menu opens the catalogue, which
// lists the registry's servers but the deprecated one, with badges that say
// where each runs, whether it needs a key and what this computer lacks;
// typing searches once the typing pauses; a server's details say what it
// runs and what it asks for.
func TestCatalogueSearchAndBadges(t *testing.T) {
	reg := registrytest.New(t)
	h := newHarness(t, sampleSnapshot(), Options{})
	useRegistry(t, h, reg.URL, t.TempDir(), &testClock{now: time.Now()}, "uvx")
	h.v.do(func() {
		test.Tap(h.v.addButton)
		tapMenuItem(t, h.win.Canvas(), "Find servers in the MCP Registry…")
	})
	c := h.v.catalogue
	if c == nil {
		t.Fatal("the menu item opened no catalogue")
	}
	h.waitFor("the whole catalogue", func() bool { return len(c.entries) > 0 })
	var rows string
	h.do(func() {
		if c.message.Visible() || c.note.Visible() {
			t.Errorf("with results shown, the catalogue still says %q / %q", c.message.Text, c.note.Text)
		}
		got := entryNames(c)
		if slices.Contains(got, registrytest.Deprecated) || !slices.Contains(got, registrytest.NPM) || !slices.Contains(got, registrytest.Remote) {
			t.Errorf("the catalogue lists %q; want every server but the deprecated one", got)
		}
		for name, want := range map[string][]string{
			registrytest.NPM:    {"Runs on this computer", "Needs a key", "Needs npx — not installed"},
			registrytest.PyPI:   {"Runs on this computer"},
			registrytest.Remote: {"Online service", "Needs a key"},
			registrytest.MCPB:   {"Cannot be installed"},
		} {
			if b := badgeTexts(c, name); !slices.Equal(b, want) {
				t.Errorf("%s has the badges %q, want %q", name, b, want)
			}
		}
		rows = strings.Join(labels(c.list), "\n")
	})
	for _, want := range []string{"Analytics — com.example/analytics", "Your site's analytics, hosted by example.com", "Needs dnx — not installed"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the list does not show %q:\n%s", want, rows)
		}
	}

	// Typing: one search once the typing pauses, not one per key.
	h.v.do(func() { c.delay = time.Second })
	before := c.searches.Load()
	h.typeIn(c.search, "weather")
	h.waitFor("the search for weather", func() bool { return c.query == "weather" })
	h.do(func() {
		if got := entryNames(c); !slices.Equal(got, []string{registrytest.MCPB, registrytest.NPM}) {
			t.Errorf("search weather lists %q", got)
		}
	})
	if n := c.searches.Load() - before; n != 1 {
		t.Errorf("typing one word searched %d times, want once", n)
	}
	h.v.do(func() { c.delay = time.Millisecond })

	var details string
	var installOff bool
	h.do(func() {
		pick(t, c, registrytest.NPM)
		details, installOff = strings.Join(labels(c.detail), "\n"), c.install.Disabled()
	})
	for _, want := range []string{"Weather", "io.github.example/weather · version 1.0.2", "How it runs", "What it asks for",
		"runs npx -y @example/weather-mcp@1.0.2 --units metric", "npx is not installed on this computer", "nodejs.org",
		"WEATHER_API_KEY", "a setting (environment variable), needed, secret: kept in your keychain", "Your API key from example.com",
		"units", "Units of measure · one of: metric, imperial · if left empty: metric"} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	if installOff {
		t.Error("Install… is disabled for a server mcptray can install")
	}
	h.do(func() {
		pick(t, c, registrytest.MCPB)
		details, installOff = strings.Join(labels(c.detail), "\n"), c.install.Disabled()
	})
	if !strings.Contains(details, "mcptray cannot install io.github.example/bundle: its MCP Bundle (mcpb) package gives no fileSha256") || !installOff {
		t.Errorf("the bundle: Install… disabled %v, details:\n%s", installOff, details)
	}

	h.typeIn(c.search, " nothing-like-this")
	h.waitFor("a search that finds nothing", func() bool { return strings.HasSuffix(c.query, "nothing-like-this") })
	h.do(func() {
		if !c.note.Visible() || !strings.Contains(c.note.Text, "No server in the registry matches") {
			t.Errorf("no match: note %q (shown %v)", c.note.Text, c.note.Visible())
		}
	})
}

// TestCatalogueOffline: with the registry unreachable the catalogue shows
// the copy kept here and says so; with no copy either it says what to do.
func TestCatalogueOffline(t *testing.T) {
	reg := registrytest.New(t)
	h := newHarness(t, sampleSnapshot(), Options{})
	cache := t.TempDir()
	clock := &testClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	useRegistry(t, h, reg.URL, cache, clock)
	h.v.do(h.v.showCatalogue)
	c := h.v.catalogue
	h.waitFor("the catalogue", func() bool { return len(c.entries) > 0 })
	h.do(func() {
		if c.note.Visible() {
			t.Errorf("a reachable registry has a note: %q", c.note.Text)
		}
		c.d.Hide()
	})

	reg.Close()
	clock.add(2 * time.Hour)
	h.v.do(h.v.showCatalogue)
	c = h.v.catalogue
	h.waitFor("the copy kept here", func() bool { return len(c.entries) > 0 })
	h.do(func() {
		if !c.note.Visible() || !strings.Contains(c.note.Text, "cannot be reached just now") || !strings.Contains(c.note.Text, "copy kept on this computer") {
			t.Errorf("offline: note %q (shown %v)", c.note.Text, c.note.Visible())
		}
		if !slices.Contains(entryNames(c), registrytest.NPM) {
			t.Errorf("offline the catalogue lists %q", entryNames(c))
		}
		c.d.Hide()
	})

	useRegistry(t, h, reg.URL, t.TempDir(), clock)
	h.v.do(h.v.showCatalogue)
	c = h.v.catalogue
	h.waitFor("the message", func() bool { return c.retry.Visible() })
	h.do(func() {
		if !strings.Contains(c.message.Text, "cannot reach the MCP Registry") || !strings.Contains(c.message.Text, "Check your internet connection") ||
			!c.retry.Visible() || len(c.entries) != 0 {
			t.Errorf("no registry, no copy: message %q, Try again shown %v, %d entries", c.message.Text, c.retry.Visible(), len(c.entries))
		}
	})
}

// TestRealCatalogueInstallNPM: installing the npm entry from the catalogue
// asks for its key, refuses to go on without it, then adds the server to
// mcptray's config with the key in the keychain and in no file.
func TestRealCatalogueInstallNPM(t *testing.T) {
	reg := registrytest.New(t)
	store := secrettest.New()
	r := newReal(t, nil, func(_ *real, o *service.Options) { o.Store = store }, withRegistry(reg.URL))
	kept := store.Len() // the running mcptray's own: its gateway's token
	withRuntimes(r.v, "npx")
	ui := r.v.do
	ui(r.v.showCatalogue)
	c := r.v.catalogue
	r.until("the catalogue", func() bool { return len(c.entries) > 0 })
	var f *installForm
	var key, units *installField
	ui(func() {
		pick(t, c, registrytest.NPM)
		test.Tap(c.install)
		f = c.form
		if f == nil || f.ways != nil {
			t.Fatalf("Install… opened %+v; want a form with no choice of ways", f)
		}
		key, units = installFieldOf(t, f, "WEATHER_API_KEY"), installFieldOf(t, f, "units")
		if f.name.Text != "weather" || key.entry == nil || !key.entry.Password || units.choice == nil || units.choice.Selected != "metric" {
			t.Fatalf("the form: name %q, key %+v, units %+v", f.name.Text, key.entry, units.choice)
		}
	})

	ui(func() {
		test.Tap(f.install)
		if !key.err.Visible() || !strings.Contains(key.err.Text, "Fill in WEATHER_API_KEY") || !f.problem.Visible() {
			t.Errorf("an empty key: field says %q (shown %v), form says %q", key.err.Text, key.err.Visible(), f.problem.Text)
		}
		if _, ok := r.v.snap.Find("weather"); ok || store.Len() != kept {
			t.Fatal("the server was added without its key")
		}
	})

	const secretValue = "wk-test-5ecret-value"
	ui(func() {
		test.Type(key.entry, secretValue)
		units.choice.SetSelected("imperial")
		test.Tap(f.install)
	})
	r.until("weather to be added and selected", func() bool { return r.v.detail.server.Name == "weather" })
	u, err := config.ReadUserFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal(u.MCPServers["weather"], &entry); err != nil {
		t.Fatalf("weather in the config: %s: %v", u.MCPServers["weather"], err)
	}
	if entry.Command != "npx" || !slices.Equal(entry.Args, []string{"-y", "@example/weather-mcp@1.0.2", "--units", "imperial"}) ||
		entry.Env["WEATHER_API_KEY"] != "${secret:WEATHER_API_KEY}" {
		t.Errorf("weather in the config: %+v", entry)
	}
	infos, err := r.svc.Secrets(t.Context(), "weather")
	if err != nil || len(infos) != 1 || infos[0].Name != "WEATHER_API_KEY" || !infos[0].Set || store.Len() != kept+1 {
		t.Errorf("the keychain: %+v, %v (%d kept, %d before)", infos, err, store.Len(), kept)
	}
	err = filepath.Walk(r.dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		if data, _ := os.ReadFile(path); strings.Contains(string(data), secretValue) {
			t.Errorf("the key is written in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ui(func() {
		if key.entry.Text != "" {
			t.Error("the closed form still holds the key")
		}
	})
}

// TestCatalogueInstallRemote: the remote entry asks for its address's
// variable (checked as the CLI checks it) and its secret header; the
// entry added holds the address and a reference to the key, never the key;
// sign-in follows when the server asks.
func TestCatalogueInstallRemote(t *testing.T) {
	reg := registrytest.New(t)
	h := newHarness(t, sampleSnapshot(), Options{})
	useRegistry(t, h, reg.URL, t.TempDir(), &testClock{now: time.Now()})
	h.v.do(h.v.showCatalogue)
	c := h.v.catalogue
	h.waitFor("the catalogue", func() bool { return len(c.entries) > 0 })
	ui := h.do
	var f *installForm
	var tenant *installField
	ui(func() {
		pick(t, c, registrytest.Remote)
		test.Tap(c.install)
		f = c.form
		var apiKey *installField
		tenant, apiKey = installFieldOf(t, f, "tenant"), installFieldOf(t, f, "X-API-Key")
		if !apiKey.entry.Password || tenant.entry.Password || !strings.Contains(f.runs.Text, "https://{tenant}.analytics.example.com/mcp") {
			t.Fatalf("the form: tenant %+v, key %+v, runs %q", tenant.entry, apiKey.entry, f.runs.Text)
		}
		test.Type(tenant.entry, "acme/evil")
		test.Type(apiKey.entry, "ak-123")
		test.Tap(f.install)
		if !tenant.err.Visible() || !strings.Contains(tenant.err.Text, "may hold only letters, digits") {
			t.Errorf("a tenant with a slash: %q (shown %v)", tenant.err.Text, tenant.err.Visible())
		}
		tenant.entry.SetText("acme")
		test.Tap(f.install)
	})
	h.waitFor("the install", func() bool { return !f.install.Disabled() || h.v.signInNext["analytics"] })
	h.b.mu.Lock()
	added := slices.Clone(h.b.added)
	h.b.mu.Unlock()
	if len(added) != 1 {
		t.Fatalf("the backend was asked to add %d servers", len(added))
	}
	req := added[0]
	if req.Name != "analytics" || req.Secrets["X_API_KEY"] != "ak-123" || strings.Contains(string(req.Entry), "ak-123") {
		t.Errorf("the request: name %q, secrets %d, entry %s", req.Name, len(req.Secrets), req.Entry)
	}
	var entry struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(req.Entry, &entry); err != nil || entry.URL != "https://acme.analytics.example.com/mcp" ||
		entry.Type != "http" || entry.Headers["X-API-Key"] != "${secret:X_API_KEY}" {
		t.Errorf("the entry: %s (%v)", req.Entry, err)
	}
	h.do(func() {
		if !h.v.signInNext["analytics"] {
			t.Error("the window does not go on to sign in once the new remote asks")
		}
		if c.ctx.Err() == nil || !f.closed {
			t.Error("the catalogue stays open after the install")
		}
	})
}

// both is an entry that runs on this computer or online.
const both = `{"server": {"name": "io.github.example/notes", "title": "Notes", "description": "Your notes, here or online", "version": "2.0.0",
  "packages": [{"registryType": "pypi", "identifier": "notes-mcp", "version": "2.0.0", "transport": {"type": "stdio"},
    "environmentVariables": [{"name": "NOTES_DIR", "description": "Where your notes are", "isRequired": true, "format": "filepath"}]}],
  "remotes": [{"type": "sse", "url": "https://notes.example.com/sse",
    "headers": [{"name": "Authorization", "description": "Bearer and your token", "isRequired": true, "isSecret": true}]}]},
 "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": true}}}`

// TestCatalogueChoosesLocalOrRemote: an entry with both a package and a
// remote lets the person choose; the form asks for what the way chosen
// needs, and the entry added is that way's.
func TestCatalogueChoosesLocalOrRemote(t *testing.T) {
	reg := registrytest.New(t)
	reg.Put(both, registrytest.Published)
	h := newHarness(t, sampleSnapshot(), Options{})
	useRegistry(t, h, reg.URL, t.TempDir(), &testClock{now: time.Now()}, "uvx")
	h.v.do(h.v.showCatalogue)
	c := h.v.catalogue
	h.waitFor("the catalogue", func() bool { return len(c.entries) > 0 })
	ui := h.do
	var details string
	var f *installForm
	ui(func() {
		if b := badgeTexts(c, "io.github.example/notes"); !slices.Equal(b, []string{"Runs on this computer", "Online service"}) {
			t.Errorf("notes has the badges %q", b)
		}
		pick(t, c, "io.github.example/notes")
		details = strings.Join(labels(c.detail), "\n")
		test.Tap(c.install)
		f = c.form
	})
	if !strings.Contains(details, "Ways to run it") ||
		!strings.Contains(details, "runs uvx notes-mcp@2.0.0") || !strings.Contains(details, "connects to https://notes.example.com/sse") {
		t.Errorf("the details do not show both ways:\n%s", details)
	}
	ui(func() {
		if f.ways == nil || len(f.ways.Options) != 2 || f.ways.Selected != "On this computer, with uvx" {
			t.Fatalf("the ways offered: %+v", f.ways)
		}
		test.Type(installFieldOf(t, f, "NOTES_DIR").entry, "/home/me/notes")
		f.ways.SetSelected("Online, at https://notes.example.com/sse")
		if len(f.fields) != 1 || f.fields[0].f.Key != "Authorization" || !strings.Contains(f.runs.Text, "connects to https://notes.example.com/sse") {
			t.Fatalf("online, the form asks for %+v and says %q", f.fields, f.runs.Text)
		}
		f.ways.SetSelected("On this computer, with uvx")
		if dir := installFieldOf(t, f, "NOTES_DIR"); dir.entry.Text != "/home/me/notes" {
			t.Errorf("going back lost what was typed: %q", dir.entry.Text)
		}
	})
	ui(func() {
		f.ways.SetSelected("Online, at https://notes.example.com/sse")
		test.Type(installFieldOf(t, f, "Authorization").entry, "Bearer tok")
		test.Tap(f.install)
	})
	h.waitFor("the install", func() bool { return f.closed })
	h.b.mu.Lock()
	added := slices.Clone(h.b.added)
	h.b.mu.Unlock()
	if len(added) != 1 || added[0].Name != "notes" || !strings.Contains(string(added[0].Entry), `"url":"https://notes.example.com/sse"`) ||
		!strings.Contains(string(added[0].Entry), `"type":"sse"`) || added[0].Secrets["Authorization"] != "Bearer tok" {
		t.Errorf("added %+v", added)
	}
}

// TestOptionsOfSeveralWays: each package mcptray can run, then each
// remote, every one with a label of its own; what mcptray cannot run is
// left out.
func TestOptionsOfSeveralWays(t *testing.T) {
	var d registry.ServerDetail
	err := json.Unmarshal([]byte(`{"name": "io.github.example/many", "packages": [
	    {"registryType": "npm", "identifier": "many-mcp", "transport": {"type": "stdio"}},
	    {"registryType": "mcpb", "identifier": "https://example.com/many.mcpb", "transport": {"type": "stdio"}},
	    {"registryType": "pypi", "identifier": "many-mcp", "transport": {"type": "stdio"}}],
	  "remotes": [{"type": "streamable-http", "url": "https://many.example.com/mcp"},
	    {"type": "sse", "url": "https://many.example.com/mcp"}]}`), &d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range optionsOf(&d) {
		got = append(got, o.label)
	}
	want := []string{"On this computer, with npx (npm package many-mcp)", "On this computer, with uvx (pypi package many-mcp)",
		"Online, at https://many.example.com/mcp", "Online, at https://many.example.com/mcp (2)"}
	if !slices.Equal(got, want) {
		t.Errorf("the ways: %q\nwant %q", got, want)
	}
	e := entryOf(registry.Response{Server: d}, func(rt string) bool { return rt == "uvx" })
	if e.options[0].missingRuntime != "npx" || e.options[1].missingRuntime != "" {
		t.Errorf("missing runtimes: %q, %q", e.options[0].missingRuntime, e.options[1].missingRuntime)
	}
}

// TestCatalogueFromTheWelcome: a first launch's welcome opens the
// catalogue too.
func TestCatalogueFromTheWelcome(t *testing.T) {
	reg := registrytest.New(t)
	h := newHarness(t, service.Snapshot{Keychain: service.Keychain{Available: true}}, Options{})
	useRegistry(t, h, reg.URL, t.TempDir(), &testClock{now: time.Now()}, "uvx")
	h.tap(h.v.welcome.find)
	c := h.v.catalogue
	if c == nil {
		t.Fatal("Find servers… opened no catalogue")
	}
	h.waitFor("the whole catalogue", func() bool { return len(c.entries) > 0 })
}

// TestCatalogueInstallSaysWhatItReaches: the form for a hostile entry,
// whose command names ~/.ssh and by default ~/Documents, says, as the
// person types the notes folder, that the server may reach that folder
// and that ~/.ssh and ~/Documents, which its publisher named, are not
// given, with the command that gives each; the request carries the folder
// typed as the person's, and the default the form showed filled in is
// not among it.
func TestCatalogueInstallSaysWhatItReaches(t *testing.T) {
	reg := registrytest.New(t)
	reg.Put(registrytest.Hostile, registrytest.Published)
	home := t.TempDir()
	for _, d := range []string{".ssh", "Documents", "notes"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	notes := filepath.Join(home, "notes")
	h := newHarness(t, sampleSnapshot(), Options{Home: home})
	useRegistry(t, h, reg.URL, t.TempDir(), &testClock{now: time.Now()}, "npx")
	h.v.do(h.v.showCatalogue)
	c := h.v.catalogue
	h.waitFor("the catalogue", func() bool { return len(c.entries) > 0 })
	var f *installForm
	h.do(func() {
		pick(t, c, registrytest.HostileName)
		test.Tap(c.install)
		f = c.form
		if docs := installFieldOf(t, f, "docs"); docs.entry.Text != "~/Documents" {
			t.Errorf("the default is not shown filled in: %q", docs.entry.Text)
		}
		test.Type(installFieldOf(t, f, "notes").entry, notes)
		for _, want := range []string{
			"In its sandbox it may read and change ~/notes (as you gave), its own data folder, and nothing else in your home.",
			"The publisher's command names ~/.ssh: it is not given to the server.\n",
			"The default value of docs, which you left as it is, names ~/Documents: it is not given to the server.\n",
			"Once it is installed, its detail has a button that gives each of them.",
		} {
			if !f.reach.Visible() || !strings.Contains(f.reach.Text, want) {
				t.Errorf("the form lacks %q (shown %v):\n%s", want, f.reach.Visible(), f.reach.Text)
			}
		}
		test.Tap(f.install)
	})
	h.waitFor("the install", func() bool { return f.closed })
	h.b.mu.Lock()
	added := slices.Clone(h.b.added)
	h.b.mu.Unlock()
	if len(added) != 1 || !slices.Equal(added[0].Given, []string{notes}) || added[0].Registry == nil {
		t.Fatalf("the requests: %+v", added)
	}
}
