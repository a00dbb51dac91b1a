package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sanitize"
)

// registrySetting is the key of mcptray's config file that names another
// registry than the official one.
const registrySetting = "registryUrl"

// catalogue returns the MCP Registry's catalogue as this computer keeps it.
func (c *cmdContext) catalogue() (*registry.Cache, error) {
	setting := ""
	if u, err := config.ReadUserFile(c.paths.UserFile()); err == nil {
		setting, _ = u.Setting(registrySetting)
	}
	cl, err := registry.NewClient(registry.BaseURL(setting, c.Lookup), nil, c.logger())
	if err != nil {
		return nil, fmt.Errorf("%w; correct %q in %s or %s", err, registrySetting, c.home(c.paths.UserFile()), registry.EnvURL)
	}
	path, err := registry.CachePath(runtime.GOOS, c.Lookup)
	if err != nil {
		return nil, err
	}
	return &registry.Cache{Path: path, Client: cl, Logger: c.logger(), Now: c.Now}, nil
}

// searchResult is one line of search --json.
type searchResult struct {
	registry.Summary
	// RuntimeInstalled says whether Runtime is on this computer's PATH.
	RuntimeInstalled bool `json:"runtimeInstalled"`
}

func runSearch(ctx context.Context, c *cmdContext, args []string) error {
	jsonOut := false
	var words []string
	for _, a := range args {
		switch {
		case a == "--json":
			jsonOut = true
		case strings.HasPrefix(a, "-"):
			return usagef("unknown option %s", a)
		default:
			words = append(words, a)
		}
	}
	cat, err := c.catalogue()
	if err != nil {
		return err
	}
	res, err := cat.Search(ctx, strings.Join(words, " "))
	if err != nil {
		return err
	}
	if res.Note != "" {
		fmt.Fprintf(c.Stderr, "mcptray search: %s\n", sanitize.Line(res.Note))
	}
	out := []searchResult{}
	for i := range res.Servers {
		s := registry.Summarize(&res.Servers[i].Server)
		out = append(out, searchResult{Summary: s, RuntimeInstalled: s.Runtime != "" && c.installed(s.Runtime)})
	}
	if jsonOut {
		return writeJSON(c.Stdout, struct {
			Servers []searchResult `json:"servers"`
			Note    string         `json:"note,omitempty"`
		}{out, res.Note}, true)
	}
	if len(out) == 0 {
		fmt.Fprintln(c.Stdout, "No server in the registry matches.")
		return nil
	}
	for _, r := range out {
		title := ""
		if r.Title != "" {
			title = "  " + sanitize.Line(r.Title)
		}
		fmt.Fprintf(c.Stdout, "%s%s\n", sanitize.Line(r.Name), title)
		if r.Description != "" {
			fmt.Fprintf(c.Stdout, "    %s\n", sanitize.Line(r.Description))
		}
		fmt.Fprintf(c.Stdout, "    %s\n", facts(r))
	}
	fmt.Fprintln(c.Stdout, "\nmcptray install NAME adds one.")
	return nil
}

// facts says in one line how a search result would run.
func facts(r searchResult) string {
	var f []string
	switch {
	case r.Local && r.RuntimeInstalled:
		f = append(f, "local, runs with "+r.Runtime+" (installed)")
	case r.Local:
		f = append(f, "local, runs with "+r.Runtime+" (not installed here)")
	}
	if r.Remote {
		f = append(f, "remote")
	}
	if r.NeedsKeys {
		f = append(f, "needs a key")
	}
	if r.Unusable != "" {
		f = append(f, "cannot be installed: "+sanitize.Line(r.Unusable))
	}
	return strings.Join(f, " · ")
}

// installed reports whether program is on the PATH commands see (which
// tests give through Env.Lookup).
func (c *cmdContext) installed(program string) bool {
	path, _ := c.Lookup("PATH")
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{".exe", ".cmd", ".bat", ""}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			fi, err := os.Stat(filepath.Join(dir, program+ext))
			if err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&fs.ModePerm&0o111 != 0) {
				return true
			}
		}
	}
	return false
}
