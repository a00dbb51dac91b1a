package registry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

func newCache(t *testing.T, base string, now *time.Time) *registry.Cache {
	t.Helper()
	cl, err := registry.NewClient(base, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &registry.Cache{Path: filepath.Join(t.TempDir(), "mcptray", "registry.json"), Client: cl,
		PageSize: 3, Now: func() time.Time { return *now }}
}

func names(rs []registry.Response) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Server.Name)
	}
	return out
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == registry.EnvURL && v != "" }
	}
	if got := registry.BaseURL("", env("")); got != registry.DefaultURL {
		t.Errorf("default = %q", got)
	}
	if got := registry.BaseURL("", env("http://127.0.0.1:9/")); got != "http://127.0.0.1:9" {
		t.Errorf("from the environment = %q", got)
	}
	if got := registry.BaseURL("https://reg.example.org", env("http://127.0.0.1:9")); got != "https://reg.example.org" {
		t.Errorf("the setting must win: %q", got)
	}
	if _, err := registry.NewClient("ftp://x", nil, nil); err == nil {
		t.Error("an ftp registry must be refused")
	}
}

func TestClientPagesAndLatest(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	cl, _ := registry.NewClient(reg.URL, nil, nil)
	ctx := context.Background()
	var all []string
	opts := registry.ListOptions{Limit: 4}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging never ends")
		}
		p, err := cl.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, names(p.Servers)...)
		if p.NextCursor == "" {
			break
		}
		opts.Cursor = p.NextCursor
	}
	if len(all) != len(registrytest.Examples) {
		t.Errorf("paged through %d servers, want %d: %q", len(all), len(registrytest.Examples), all)
	}
	for _, u := range reg.Requests() {
		if u.Query().Get("version") != "latest" || u.Query().Get("limit") != "4" {
			t.Errorf("request %s does not ask for the latest versions 4 at a time", u)
		}
	}
	r, err := cl.Latest(ctx, registrytest.Remote)
	if err != nil || r.Server.Name != registrytest.Remote || len(r.Server.Remotes) != 1 {
		t.Fatalf("Latest = %+v, %v", r, err)
	}
	if reqs := reg.Requests(); reqs[len(reqs)-1].EscapedPath() != "/v0.1/servers/com.example%2Fanalytics/versions/latest" {
		t.Errorf("the name must be escaped in the path: %s", reqs[len(reqs)-1].EscapedPath())
	}
	_, err = cl.Latest(ctx, "io.github.nobody/none")
	var nf *registry.NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no server called") {
		t.Errorf("a missing server: %v", err)
	}
}

func TestClientRefusesWhatIsNotARegistry(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.HandlerFunc{
		"html": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) },
		"huge": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"servers":[`))
			chunk := []byte(strings.Repeat(" ", 1<<20))
			for range 9 {
				w.Write(chunk)
			}
		},
		"forbidden": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(h)
			defer srv.Close()
			cl, _ := registry.NewClient(srv.URL, nil, nil)
			_, err := cl.List(context.Background(), registry.ListOptions{})
			if err == nil || !strings.Contains(err.Error(), "the registry at "+srv.URL) {
				t.Errorf("got %v, want a plain error naming the registry", err)
			}
		})
	}
}

func TestCacheSearchRefreshAndOffline(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	c := newCache(t, reg.URL, &now)
	ctx := context.Background()

	res, err := c.Search(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	// The deprecated weather server is not offered; the bundle is (its
	// description matches) even though install will refuse it.
	if got := names(res.Servers); !slices.Equal(got, []string{registrytest.MCPB, registrytest.NPM}) {
		t.Errorf("search weather = %q", got)
	}
	first := len(reg.Requests())
	if first < 4 { // 10 entries, 3 a page
		t.Errorf("the first refresh asked %d times, want every page", first)
	}
	for _, u := range reg.Requests() {
		if u.Query().Has("updated_since") {
			t.Errorf("the first refresh must ask for everything: %s", u)
		}
	}
	if _, err := os.Stat(c.Path); err != nil {
		t.Fatalf("the catalogue was not saved: %v", err)
	}

	// Within the hour the registry is not asked again.
	now = now.Add(59 * time.Minute)
	if res, err := c.Search(ctx, "time"); err != nil || !slices.Equal(names(res.Servers), []string{registrytest.PyPI}) {
		t.Errorf("search time = %q, %v", names(res.Servers), err)
	}
	if n := len(reg.Requests()); n != first {
		t.Errorf("the registry was asked %d more times within the hour", n-first)
	}

	// After it, only for what changed since the last refresh began.
	checked := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	reg.Put(`{"server": {"name": "io.github.example/tides", "title": "Tides", "description": "Tide tables", "version": "1.0.0",
	  "packages": [{"registryType": "npm", "identifier": "tides-mcp", "version": "1.0.0", "transport": {"type": "stdio"}}]}}`, checked.Add(time.Minute))
	reg.Put(`{"server": {"name": "io.github.example/time", "version": "0.7.0"},
	  "_meta": {"io.modelcontextprotocol.registry/official": {"status": "deleted"}}}`, checked.Add(time.Minute))
	now = now.Add(2 * time.Minute)
	res, err = c.Search(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	reqs := reg.Requests()[first:]
	if len(reqs) != 1 || reqs[0].Query().Get("updated_since") != "2026-12-02T10:00:00Z" {
		t.Errorf("the refresh asked %q, want one request updated_since the last refresh", reqs)
	}
	got := names(res.Servers)
	if !slices.Contains(got, "io.github.example/tides") || slices.Contains(got, registrytest.PyPI) || slices.Contains(got, registrytest.Deprecated) {
		t.Errorf("after the refresh: %q; want tides added, time deleted, the deprecated one hidden", got)
	}

	// Offline: the copy kept here, and a note that says so.
	reg.Close()
	now = now.Add(2 * time.Hour)
	res, err = c.Search(ctx, "pull requests")
	if err != nil {
		t.Fatalf("offline search: %v", err)
	}
	if !slices.Equal(names(res.Servers), []string{registrytest.OCI}) || !strings.Contains(res.Note, "cannot reach the registry") ||
		!strings.Contains(res.Note, "copy kept on this computer") {
		t.Errorf("offline: %q, note %q", names(res.Servers), res.Note)
	}
	if r, err := c.Get(ctx, registrytest.Remote); err != nil || r.Server.Name != registrytest.Remote {
		t.Errorf("offline Get = %v", err)
	}
}

func TestCacheUnreachableWithoutCopy(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	reg.Close()
	now := time.Now()
	c := newCache(t, reg.URL, &now)
	_, err := c.Search(context.Background(), "x")
	var ue *registry.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "check your internet connection") {
		t.Errorf("got %v", err)
	}
	if _, serr := os.Stat(c.Path); serr == nil {
		t.Error("nothing must be written when the registry cannot be reached")
	}
}

func TestCacheGetRefusesDeprecated(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	now := time.Now()
	c := newCache(t, reg.URL, &now)
	_, err := c.Get(context.Background(), registrytest.Deprecated)
	if err == nil || !strings.Contains(err.Error(), "deprecated") || !strings.Contains(err.Error(), "Use io.github.example/weather instead") {
		t.Errorf("got %v", err)
	}
	if _, err := c.Get(context.Background(), "io.github.nobody/none"); err == nil {
		t.Error("a server the registry does not have must be an error")
	}
}
