package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/mcptray/mcptray/core/service"
)

// versionInfo is what mcptray version prints.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	// Commit is the source revision the build recorded, when it was
	// built from a git checkout; Modified says it had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: service.Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

func runVersion(_ context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	v := buildVersion()
	if *asJSON {
		return writeJSON(c.Stdout, v, true)
	}
	fmt.Fprintf(c.Stdout, "mcptray %s\n", v.Version)
	fmt.Fprintf(c.Stdout, "built with %s for %s/%s\n", v.Go, v.OS, v.Arch)
	if v.Commit != "" {
		mod := ""
		if v.Modified {
			mod = " (with uncommitted changes)"
		}
		fmt.Fprintf(c.Stdout, "from commit %s%s\n", v.Commit, mod)
	}
	return nil
}
