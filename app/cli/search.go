package cli

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/sanitize"
)

// catalogue returns the MCP Registry's catalogue as this computer keeps it
// (the window opens the same one).
func (c *cmdContext) catalogue() (*registry.Cache, error) {
	return registry.Open(registry.OpenOptions{UserFile: c.paths.UserFile(), ShowFile: c.home(c.paths.UserFile()),
		GOOS: runtime.GOOS, Lookup: c.Lookup, Logger: c.logger(), Now: c.Now})
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
	return registry.Installed(program, runtime.GOOS, c.Lookup)
}
