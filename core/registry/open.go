package registry

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// Setting is the key of mcptray's config file that names another registry
// than the official one.
const Setting = "registryUrl"

// OpenOptions say where the catalogue is: what the command line and the
// window both read, so that they search the same registry and share one
// copy of its catalogue.
type OpenOptions struct {
	// UserFile is mcptray's config file (config.Paths.UserFile), whose
	// Setting names the registry.
	UserFile string
	// ShowFile is how an error names UserFile ("~/.config/…"); "" shows
	// UserFile as it is.
	ShowFile string
	// GOOS picks the cache folder's convention (runtime.GOOS).
	GOOS string
	// Lookup reads environment variables (EnvURL, HOME, XDG_CACHE_HOME…).
	Lookup func(string) (string, bool)
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Open returns the MCP Registry's catalogue as this computer keeps it: the
// registry named by the config file's Setting, else by EnvURL, else the
// official one, kept at CachePath.
func Open(o OpenOptions) (*Cache, error) {
	setting := ""
	if u, err := config.ReadUserFile(o.UserFile); err == nil {
		setting, _ = u.Setting(Setting)
	}
	cl, err := NewClient(BaseURL(setting, o.Lookup), nil, o.Logger)
	if err != nil {
		show := o.ShowFile
		if show == "" {
			show = o.UserFile
		}
		return nil, fmt.Errorf("%w; correct %q in %s or %s", err, Setting, show, EnvURL)
	}
	path, err := CachePath(o.GOOS, o.Lookup)
	if err != nil {
		return nil, err
	}
	return &Cache{Path: path, Client: cl, Logger: o.Logger, Now: o.Now}, nil
}

// Installed reports whether program (a Runtime: npx, uvx…) is in a folder
// on the PATH that lookup gives, so that a catalogue can say a server needs
// something this computer lacks.
func Installed(program, goos string, lookup func(string) (string, bool)) bool {
	path, _ := lookup("PATH")
	exts := []string{""}
	if goos == "windows" {
		exts = []string{".exe", ".cmd", ".bat", ""}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			fi, err := os.Stat(filepath.Join(dir, program+ext))
			if err == nil && fi.Mode().IsRegular() && (goos == "windows" || fi.Mode()&fs.ModePerm&0o111 != 0) {
				return true
			}
		}
	}
	return false
}

// installHints say what to install for each runtime.
var installHints = map[string]string{
	"npx":    "install Node.js (it includes npx) from nodejs.org or your package manager",
	"uvx":    "install uv (it includes uvx) from docs.astral.sh/uv",
	"docker": "install Docker Desktop or Docker Engine, and make sure it is running",
	"dnx":    "install the .NET 10 SDK (it includes dnx) from dot.net",
}

// InstallHint says, in words that start with a verb, how to get runtime
// onto this computer; "" for a runtime mcptray does not know.
func InstallHint(runtime string) string { return installHints[runtime] }
