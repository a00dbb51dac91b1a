package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
)

// A server's package managers install into caches of its own, in its data
// folder: the person's shared caches (~/.npm, ~/.cache/uv, …) hold code
// that the person's own npx, uvx or go runs later outside any sandbox, so
// a server that could write there could plant code that runs unsandboxed.
// Each runtime is pointed at its own folder by the variable it reads.

// ownCaches are those variables, with their folders under the data
// folder's cache/.
var ownCaches = []struct {
	env, dir string
	// programs read it alone; nil for every server. npm warns about every
	// npm_config_ it does not know, at each start: pnpm's store is set
	// only for pnpm, and node-gyp's devdir not at all (XDG_CACHE_HOME
	// moves it on Linux).
	programs []string
}{
	{"XDG_CACHE_HOME", "", nil}, // node-gyp, pnpm's cache and the rest on Linux
	{"npm_config_cache", "npm", nil},
	{"COREPACK_HOME", "corepack", nil},
	{"YARN_CACHE_FOLDER", "yarn", nil},
	{"YARN_GLOBAL_FOLDER", "yarn-berry", nil},
	{"npm_config_store_dir", "pnpm-store", []string{"pnpm", "pnpx"}},
	{"BUN_INSTALL_CACHE_DIR", "bun", nil},
	{"DENO_DIR", "deno", nil},
	{"PLAYWRIGHT_BROWSERS_PATH", "ms-playwright", nil},
	{"UV_CACHE_DIR", "uv", nil},
	{"UV_TOOL_DIR", "uv-tools", nil},
	{"UV_PYTHON_INSTALL_DIR", "uv-python", nil},
	{"PIP_CACHE_DIR", "pip", nil},
	{"PIPX_HOME", "pipx", nil},
	{"POETRY_CACHE_DIR", "pypoetry", nil},
	{"GOMODCACHE", "go-mod", nil},
	{"GOCACHE", "go-build", nil},
	{"NUGET_PACKAGES", "nuget", nil},
}

// sharedRead are the person's shared folders a server may still read,
// relative to the home: the Pythons uv installed, which the Pythons it
// links into ~/.local/bin and the environments of tools installed with uv
// tool install run. Read only: a server's own uv installs into its own
// folder (UV_PYTHON_INSTALL_DIR), and finds the person's Pythons on PATH.
var sharedRead = []string{".local/share/uv/python"}

// ownCacheEnv is the environment that points a server's package managers
// at caches of its own under dataDir, and the folders to make for them.
// program is the server's program's name; env its environment, whose
// GOFLAGS is kept with -modcacherw added: Go makes its module cache
// read-only, and the data folder could then not be removed with the
// server.
func ownCacheEnv(dataDir, program string, env []string) (map[string]string, []string) {
	root := filepath.Join(dataDir, "cache")
	out := map[string]string{}
	dirs := []string{root}
	for _, c := range ownCaches {
		if c.programs != nil && !slices.Contains(c.programs, program) {
			continue
		}
		d := filepath.Join(root, c.dir)
		out[c.env] = d
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	flags := envValue(env, "GOFLAGS")
	if !slices.Contains(strings.Fields(flags), "-modcacherw") {
		flags = strings.TrimSpace(flags + " -modcacherw")
	}
	out["GOFLAGS"] = flags
	return out, dirs
}
