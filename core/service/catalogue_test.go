package service

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// TestSearchCatalogue: the running mcptray searches the registry its
// config names, and keeps the copy in the person's cache folder; with the
// registry gone it searches that copy and says so; with no copy either it
// names the registry it could not reach, in the result, where a front end
// across the control socket can read it.
func TestSearchCatalogue(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{}, registry.Setting: reg.URL})
	var mu sync.Mutex
	now, cacheHome := time.Now(), ""
	s := h.start(false, func(o *Options) {
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		o.Lookup = func(k string) (string, bool) {
			mu.Lock()
			defer mu.Unlock()
			if k == "XDG_CACHE_HOME" && cacheHome != "" {
				return cacheHome, true
			}
			v, ok := h.env[k]
			return v, ok
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	names := func(res CatalogueResult) []string {
		var out []string
		for _, r := range res.Servers {
			out = append(out, r.Server.Name)
		}
		return out
	}
	res, err := s.SearchCatalogue(ctx, "")
	if err != nil || !slices.Contains(names(res), registrytest.NPM) || res.Note != "" || res.Unreachable != "" {
		t.Fatalf("the whole catalogue: %v (note %q), %v", names(res), res.Note, err)
	}
	if res, err := s.SearchCatalogue(ctx, "weather"); err != nil || !slices.Contains(names(res), registrytest.NPM) || slices.Contains(names(res), registrytest.Remote) {
		t.Errorf("weather: %v, %v", names(res), err)
	}

	reg.Close()
	mu.Lock()
	now = now.Add(2 * registry.DefaultMaxAge)     // the copy is old: the registry is asked
	cacheHome = filepath.Join(h.dir, "elsewhere") // no copy there
	mu.Unlock()
	res, err = s.SearchCatalogue(ctx, "")
	if err != nil || res.Unreachable != reg.URL || len(res.Servers) != 0 {
		t.Errorf("unreachable, no copy: %+v, %v", res, err)
	}
	mu.Lock()
	cacheHome = "" // the copy kept in HOME/.cache
	mu.Unlock()
	res, err = s.SearchCatalogue(ctx, "")
	if err != nil || len(res.Servers) == 0 || !strings.Contains(res.Note, "copy kept on this computer") {
		t.Errorf("unreachable, with the copy: %d servers, note %q, %v", len(res.Servers), res.Note, err)
	}
}
