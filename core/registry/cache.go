package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// DefaultMaxAge is how long the cached catalogue is used before the
// registry is asked what changed.
const DefaultMaxAge = time.Hour

// Bounds on the catalogue: the official registry lists a few thousand
// servers.
const (
	maxCacheBytes = 64 << 20
	maxServers    = 50_000
	maxPages      = 1000
	pageSize      = 100
)

// CachePath returns where the catalogue is kept: mcptray/registry.json in
// the person's cache folder, which is what os.UserCacheDir returns, read
// through lookup so that tests can give a temporary home.
func CachePath(goos string, lookup func(string) (string, bool)) (string, error) {
	env := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	var dir string
	switch goos {
	case "windows":
		dir = env("LocalAppData")
		if dir == "" {
			dir = env("LOCALAPPDATA")
		}
	case "darwin", "ios":
		if h := env("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Caches")
		}
	default:
		dir = env("XDG_CACHE_HOME")
		if !filepath.IsAbs(dir) {
			dir = ""
			if h := env("HOME"); h != "" {
				dir = filepath.Join(h, ".cache")
			}
		}
	}
	if dir == "" {
		return "", errors.New("mcptray cannot find your cache folder (HOME is not set)")
	}
	return filepath.Join(dir, "mcptray", "registry.json"), nil
}

// Cache is the registry's catalogue kept on disk, so that search works
// offline and the registry is asked at most once every MaxAge.
type Cache struct {
	// Path is the catalogue's file (see CachePath).
	Path   string
	Client *Client
	Logger *slog.Logger
	// MaxAge is how long the catalogue is used as it is; zero means
	// DefaultMaxAge.
	MaxAge time.Duration
	// PageSize is how many entries each request asks for; zero means 100.
	PageSize int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// catalogue is the cache file's content.
type catalogue struct {
	// Base is the registry the catalogue came from; another one's
	// catalogue is thrown away.
	Base string `json:"base"`
	// Checked is when the last refresh that succeeded started: the next
	// one asks for what changed since.
	Checked time.Time `json:"checked"`
	// Servers are the latest version of each server, by name, deprecated
	// ones included (they are not offered, but install can say why).
	Servers map[string]Response `json:"servers"`
}

// Result is what Search found.
type Result struct {
	// Servers are the matching servers that may be offered, by name.
	Servers []Response
	// Checked is when the registry last answered.
	Checked time.Time
	// Note says, when it is so, that the registry could not be reached
	// and the results come from the copy kept on this computer.
	Note string
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Cache) log() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// load reads the catalogue; a missing, damaged or other registry's file is
// an empty catalogue.
func (c *Cache) load() *catalogue {
	empty := &catalogue{Base: c.Client.Base(), Servers: map[string]Response{}}
	f, err := os.Open(c.Path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log().Warn("the registry's catalogue cannot be read; starting afresh", "err", err)
		}
		return empty
	}
	defer f.Close()
	var cat catalogue
	dec := json.NewDecoder(&limitReader{r: f, n: maxCacheBytes})
	if err := dec.Decode(&cat); err != nil || cat.Base != c.Client.Base() || cat.Servers == nil {
		return empty
	}
	return &cat
}

func (c *Cache) save(cat *catalogue) error {
	data, err := json.Marshal(cat)
	if err != nil {
		return fmt.Errorf("saving the registry's catalogue: %w", err)
	}
	return config.ReplaceFile(c.Path, data, 0o600)
}

// Refresh asks the registry what changed since the catalogue was last
// checked (everything, the first time), unless that was less than MaxAge
// ago and force is false. An unreachable registry returns an
// *UnreachableError and leaves the catalogue as it was.
func (c *Cache) Refresh(ctx context.Context, force bool) error {
	_, err := c.refresh(ctx, force)
	return err
}

func (c *Cache) refresh(ctx context.Context, force bool) (*catalogue, error) {
	cat := c.load()
	maxAge := c.MaxAge
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	start := c.now()
	if !force && !cat.Checked.IsZero() && start.Sub(cat.Checked) < maxAge && !start.Before(cat.Checked) {
		return cat, nil
	}
	size := c.PageSize
	if size == 0 {
		size = pageSize
	}
	opts := ListOptions{Limit: size, UpdatedSince: cat.Checked}
	seen := map[string]bool{}
	changed := map[string]Response{}
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return cat, fmt.Errorf("the registry at %s kept sending pages (more than %d); is the address right?", c.Client.Base(), maxPages)
		}
		page, err := c.Client.List(ctx, opts)
		if err != nil {
			return cat, err
		}
		for _, r := range page.Servers {
			if r.Server.Name != "" {
				changed[r.Server.Name] = r
			}
		}
		if len(cat.Servers)+len(changed) > maxServers {
			return cat, fmt.Errorf("the registry at %s lists more than %d servers, more than mcptray keeps", c.Client.Base(), maxServers)
		}
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			return cat, fmt.Errorf("the registry at %s sent the same page twice", c.Client.Base())
		}
		seen[page.NextCursor] = true
		opts.Cursor = page.NextCursor
	}
	for name, r := range changed {
		if r.Status() == StatusDeleted {
			delete(cat.Servers, name)
			continue
		}
		cat.Servers[name] = r
	}
	cat.Checked = start
	if err := c.save(cat); err != nil {
		// The answer is still good for this search.
		c.log().Warn("the registry's catalogue cannot be saved", "err", err)
	}
	c.log().Debug("registry refreshed", "changed", len(changed), "servers", len(cat.Servers))
	return cat, nil
}

// Search returns the servers whose name, title or description hold every
// word of query (all of them for an empty query), refreshing the catalogue
// first when it is older than MaxAge. When the registry cannot be reached,
// it searches the catalogue kept here and Result.Note says so; with no
// catalogue either, it returns the *UnreachableError.
func (c *Cache) Search(ctx context.Context, query string) (Result, error) {
	cat, err := c.refresh(ctx, false)
	var res Result
	if err != nil {
		if len(cat.Servers) == 0 {
			return Result{}, err
		}
		res.Note = fmt.Sprintf("%s; these results are from the copy kept on this computer, from %s",
			err.Error(), cat.Checked.Local().Format("2 Jan 2006 15:04"))
	}
	res.Checked = cat.Checked
	words := strings.Fields(strings.ToLower(query))
	for _, r := range cat.Servers {
		if r.Offered() && matches(&r.Server, words) {
			res.Servers = append(res.Servers, r)
		}
	}
	slices.SortFunc(res.Servers, func(a, b Response) int { return strings.Compare(a.Server.Name, b.Server.Name) })
	return res, nil
}

func matches(s *ServerDetail, words []string) bool {
	text := strings.ToLower(s.Name + "\n" + s.Title + "\n" + s.Description)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// Get returns the latest version of the server called name, from the
// catalogue (refreshed when older than MaxAge) or, when it is not there,
// from the registry. A deprecated or deleted server is refused with the
// registry's reason.
func (c *Cache) Get(ctx context.Context, name string) (Response, error) {
	cat, _ := c.refresh(ctx, false) // offline: the catalogue as it is
	r, ok := cat.Servers[name]
	if !ok {
		var err error
		if r, err = c.Client.Latest(ctx, name); err != nil {
			return Response{}, err
		}
	}
	if !r.Offered() {
		msg := fmt.Sprintf("%s is %s in the registry", name, r.Status())
		if m := r.Meta.Official; m != nil && strings.TrimSpace(m.StatusMessage) != "" {
			msg += ": " + strings.TrimSpace(m.StatusMessage)
		}
		return Response{}, errors.New(msg + "; mcptray does not install it")
	}
	return r, nil
}

// limitReader fails instead of stopping at n bytes, so that a truncated
// catalogue is not taken for a whole one.
type limitReader struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("the catalogue is too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
