package bundle

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
)

// Computer is what Needs knows of the computer a bundle is to run on.
type Computer struct {
	// OS is runtime.GOOS's name for it.
	OS string
	// LookPath finds a program as the server's command would.
	LookPath func(name string) (string, error)
	// Version runs program --version and returns what it printed.
	Version func(ctx context.Context, program string) (string, error)
}

// ThisComputer is the computer mcptray runs on, whose programs' versions
// version asks. mcptray runs no runtime in its own process: the program
// found may lie in a folder a server may change, and its version says
// run it in a sandbox (sandbox.Look, core/service).
func ThisComputer(version func(ctx context.Context, program string) (string, error)) Computer {
	return Computer{OS: runtime.GOOS, LookPath: exec.LookPath, Version: func(ctx context.Context, program string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return version(ctx, program)
	}}
}

// platformNames are the bundle format's platforms in words.
var platformNames = map[string]string{"darwin": "macOS", "win32": "Windows", "linux": "Linux"}

// platform is the bundle format's name for the operating system goos.
func platform(goos string) string {
	if goos == "windows" {
		return "win32"
	}
	return goos
}

// OtherPlatforms says, when the bundle runs only on other platforms than
// the operating system goos, which: "it runs on macOS and Windows only,
// not on Linux"; "" when it runs there.
func (m *Manifest) OtherPlatforms(goos string) string {
	ps := m.Compatibility.Platforms
	if len(ps) == 0 || slices.Contains(ps, platform(goos)) {
		return ""
	}
	var names []string
	for _, p := range ps {
		names = append(names, cmp.Or(platformNames[p], p))
	}
	return fmt.Sprintf("it runs on %s only, not on %s", strings.Join(names, " and "), cmp.Or(platformNames[platform(goos)], goos))
}

// runtimeInfo is one runtime a bundle may need: its name in words, the
// programs that run it, and where to get it.
type runtimeInfo struct {
	words    string
	programs []string
	get      string
}

var runtimes = map[string]runtimeInfo{
	"node":   {"Node.js", []string{"node"}, "https://nodejs.org"},
	"python": {"Python", []string{"python3", "python"}, "https://www.python.org/downloads"},
	"uv":     {"uv", []string{"uv"}, "https://docs.astral.sh/uv"},
}

// Needs says what the bundle needs that this computer lacks, each in
// words with what to do; none when it can run here.
func (m *Manifest) Needs(ctx context.Context, c Computer) []string {
	var out []string
	if p := m.OtherPlatforms(c.OS); p != "" {
		out = append(out, p)
	}
	type need struct{ runtime, want string }
	var needs []need
	switch m.Server.Type {
	case "node":
		needs = append(needs, need{"node", m.Compatibility.Runtimes["node"]})
	case "python":
		needs = append(needs, need{"python", m.Compatibility.Runtimes["python"]})
	case "uv":
		// uv finds or installs the Python the server asks for.
		needs = append(needs, need{"uv", ""})
	}
	for rt, want := range m.Compatibility.Runtimes {
		if !slices.ContainsFunc(needs, func(n need) bool { return n.runtime == rt }) && m.Server.Type != "uv" {
			needs = append(needs, need{rt, want})
		}
	}
	slices.SortFunc(needs, func(a, b need) int { return strings.Compare(a.runtime, b.runtime) })
	for _, n := range needs {
		if p := needRuntime(ctx, c, n.runtime, n.want); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// needRuntime says what is missing of runtime rt in version range want
// (any version when ""), or "".
func needRuntime(ctx context.Context, c Computer, rt, want string) string {
	info, ok := runtimes[rt]
	if !ok {
		return ""
	}
	var constraint *semver.Constraints
	if want != "" {
		var err error
		if constraint, err = semver.NewConstraint(want); err != nil {
			return fmt.Sprintf("it asks for %s %q, which is no version range mcptray can read", info.words, want)
		}
	}
	wanted := info.words
	if want != "" {
		wanted += " " + versionWords(want)
	}
	var found []string
	for _, prog := range info.programs {
		path, err := c.LookPath(prog)
		if err != nil {
			continue
		}
		if constraint == nil {
			return ""
		}
		out, err := c.Version(ctx, path)
		v := versionIn(out)
		if err != nil || v == nil {
			found = append(found, prog+" (whose version it would not say)")
			continue
		}
		if constraint.Check(v) {
			return ""
		}
		found = append(found, info.words+" "+v.String())
	}
	if len(found) == 0 {
		return fmt.Sprintf("needs %s; this computer has none — install it from %s", wanted, info.get)
	}
	return fmt.Sprintf("needs %s; this computer has %s — install a newer one from %s", wanted, strings.Join(found, " and "), info.get)
}

var versionRE = regexp.MustCompile(`\d+\.\d+(\.\d+)?`)

// versionIn finds the version in what a program's --version printed
// ("v20.11.1", "Python 3.12.3").
func versionIn(out string) *semver.Version {
	s := versionRE.FindString(out)
	if s == "" {
		return nil
	}
	v, err := semver.NewVersion(s)
	if err != nil {
		return nil
	}
	return v
}

// versionWords says a version range as a person would: ">=18.0.0" is "18
// or newer".
func versionWords(want string) string {
	w := strings.TrimSpace(want)
	if rest, ok := strings.CutPrefix(w, ">="); ok && !strings.ContainsAny(rest, " ,<>|^~") {
		rest = strings.TrimSpace(rest)
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".0"), ".0")
		return rest + " or newer"
	}
	return w
}
