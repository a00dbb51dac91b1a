package sandbox

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// # A server's environment
//
// A server gets of the person's environment (their login shell's, read by
// core/transport) only what runs programs; anything else reaches it only
// when its config names it (its "env" block or env file, which a bundle's
// or the MCP Registry's settings fill). A token that ~/.profile exports
// (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, an OpenAI key) is kept from every
// server as the same token in ~/.aws is. The rule is the same for a server
// run without a sandbox (turned off, on Windows, podman's): a server that
// reads no file of the person's still does not get their secrets in its
// environment, to log, report in a crash or pass to what it runs, and a
// server behaves the same with its sandbox on and off.

// loginVars are the person's variables a server gets (LoginVar):
//
//   - what runs programs, and whose: PATH, HOME, USER, LOGNAME, SHELL, TERM
//     (no secret, and tools that print in colours ask for it), the locale
//     (LANG, LANGUAGE and every LC_*), TZ, and the temporary folder
//     (TMPDIR, TMP, TEMP: a sandbox sets its own);
//   - the XDG base folders (where programs keep their settings and data),
//     and BROWSER, the browser a sign-in helper opens;
//   - the desktop's addresses: DISPLAY, WAYLAND_DISPLAY,
//     DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR. A server without a sandbox
//     opens the person's browser through them (xdg-open, for a sign-in); a
//     sandbox that refuses other programs' sockets takes them out
//     (desktopVars), as they name what it cannot reach;
//   - the runtimes' and version managers' own folders and choices:
//     nvm's, Volta's, pyenv's, a Java's, Go's, Rust's, Bun's, Deno's,
//     pnpm's, SDKMAN's, Homebrew's, an active virtualenv's or conda's,
//     and every fnm, asdf and mise setting (loginPrefixes);
//   - the certificates of a company's network (SSL_CERT_FILE,
//     SSL_CERT_DIR, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE,
//     CURL_CA_BUNDLE, PIP_CERT, GIT_SSL_CAINFO, NIX_SSL_CERT_FILE: a file
//     outside the folders a sandbox reads is not read), and its web proxy (HTTP_PROXY, HTTPS_PROXY,
//     ALL_PROXY, NO_PROXY, in either case), without which nothing is
//     reached; where mcptray's egress proxy runs, its own replace them;
//   - Docker's and Podman's client settings (DOCKER_HOST, DOCKER_CONTEXT,
//     DOCKER_CONFIG, CONTAINER_HOST): where the daemon is;
//   - on Windows, the system's own (SystemRoot, ComSpec, PATHEXT,
//     USERPROFILE, APPDATA, LOCALAPPDATA, ProgramFiles, …), without which
//     programs there do not start.
//
// Not passed, among the rest: SSH_AUTH_SOCK (an ssh-agent signs as the
// person); NODE_OPTIONS, PYTHONPATH, LD_PRELOAD, LD_LIBRARY_PATH and
// JAVA_TOOL_OPTIONS, which load code the person's shell named into every
// program the server runs, from files its sandbox may not let it read (node
// then does not start); and package registries' settings
// (npm_config_registry, PIP_INDEX_URL, GOPROXY), which often carry a
// credential. A server that needs one names it in its config.
var loginVars = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ",
	"TMPDIR", "TMP", "TEMP",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
	"BROWSER", "__CF_USER_TEXT_ENCODING",
	"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
	"NVM_DIR", "NVM_BIN", "NVM_INC", "VOLTA_HOME", "PYENV_ROOT", "PYENV_VERSION",
	"JAVA_HOME", "GOPATH", "GOROOT", "GOBIN", "GOTOOLCHAIN", "GOFLAGS",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "BUN_INSTALL", "DENO_INSTALL", "PNPM_HOME", "SDKMAN_DIR",
	"HOMEBREW_PREFIX", "HOMEBREW_CELLAR", "HOMEBREW_REPOSITORY",
	"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_EXE", "CONDA_PYTHON_EXE", "CONDA_DEFAULT_ENV", "CONDA_SHLVL",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"PIP_CERT", "GIT_SSL_CAINFO", "NIX_SSL_CERT_FILE",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
	"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "CONTAINER_HOST",
}

// windowsVars are Windows's own variables, passed there (upper-cased, as
// Windows compares names).
var windowsVars = []string{
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "OS",
	"USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA",
	"PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMMONPROGRAMW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "PSMODULEPATH",
}

// loginPrefixes are families of settings passed whole (the locale's LC_*,
// and fnm's, asdf's and mise's own), but for a name that says it holds a
// secret (secretWords): mise reads MISE_GITHUB_TOKEN, say.
var loginPrefixes = []string{"LC_", "FNM_", "ASDF_", "MISE_"}

// secretWords in a name keep it from passing by its prefix.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL"}

// desktopVars are the desktop session's addresses, taken out of a
// sandboxed server's environment unless it may use other programs'
// sockets: it could reach none of them.
var desktopVars = []string{"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"}

// LoginVar reports whether a server gets the person's variable name
// (loginVars says which, and why).
func LoginVar(name string) bool {
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
		if slices.Contains(windowsVars, name) {
			return true
		}
		for _, v := range loginVars {
			if strings.ToUpper(v) == name {
				return true
			}
		}
	} else if slices.Contains(loginVars, name) {
		return true
	}
	for _, p := range loginPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			upper := strings.ToUpper(name)
			return !slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(upper, w) })
		}
	}
	return false
}

// FromLogin is what a server gets of the person's environment login: the
// variables LoginVar passes, in login's order. withheld are the names of
// the rest, sorted, for words (never their values).
func FromLogin(login []string) (kept []string, withheld []string) {
	kept = make([]string, 0, len(login))
	for _, kv := range login {
		name, _, ok := strings.Cut(kv, "=")
		if runtime.GOOS == "windows" && name == "" { // cmd.exe's "=C:=C:\x"
			if i := strings.IndexByte(kv[1:], '='); i >= 0 {
				name, ok = kv[:i+1], true
			}
		}
		switch {
		case !ok || name == "":
		case LoginVar(name):
			kept = append(kept, kv)
		case !slices.Contains(withheld, name):
			withheld = append(withheld, name)
		}
	}
	slices.Sort(withheld)
	return kept, withheld
}

// Environment names what a server's environment holds, never a value: the
// approval dialog, the detail and mcptray sandbox SERVER say it.
type Environment struct {
	// Login are the person's variables it gets (LoginVar), sorted.
	Login []string `json:"login,omitempty"`
	// Config are the variables its config names, sorted; EnvFile is its
	// env file, whose variables it gets too.
	Config  []string `json:"config,omitempty"`
	EnvFile string   `json:"envFile,omitempty"`
	// Withheld are the person's variables it does not get, sorted.
	Withheld []string `json:"withheld,omitempty"`
	// Words say it: "Environment: HOME, LANG, PATH of yours, API_KEY from
	// its config, and its own TMPDIR and caches; not passed: 14 other
	// variables of yours."
	Words string `json:"words"`
}

// DescribeEnv says what environment a server gets: of login (the
// person's), what FromLogin keeps; config are the names its config's env
// block gives, envFile its env file ("" for none). p is its sandbox's
// policy, nil when it runs without one: a sandbox adds its own variables
// and takes the desktop's addresses out.
func DescribeEnv(login []string, config []string, envFile string, p *Policy) Environment {
	kept, withheld := FromLogin(login)
	e := Environment{Config: slices.Sorted(slices.Values(config)), EnvFile: envFile}
	for _, name := range withheld {
		if !slices.Contains(e.Config, name) { // its config gives its own
			e.Withheld = append(e.Withheld, name)
		}
	}
	for _, kv := range kept {
		name, _, _ := strings.Cut(kv, "=")
		sandboxes := false
		if p != nil {
			_, sandboxes = p.Env[name]
		}
		switch {
		case slices.Contains(e.Config, name), slices.Contains(e.Login, name), sandboxes:
			// its config's value, or its sandbox's, wins
		case p != nil && slices.Contains(p.Unset, name):
			e.Withheld = append(e.Withheld, name)
		default:
			e.Login = append(e.Login, name)
		}
	}
	slices.Sort(e.Login)
	slices.Sort(e.Withheld)
	e.Withheld = slices.Compact(e.Withheld)
	var parts []string
	if len(e.Login) > 0 {
		parts = append(parts, strings.Join(e.Login, ", ")+" of yours")
	}
	if len(e.Config) > 0 {
		parts = append(parts, strings.Join(e.Config, ", ")+" from its config")
	}
	if e.EnvFile != "" {
		parts = append(parts, "what its env file "+e.EnvFile+" sets")
	}
	if p != nil {
		parts = append(parts, "its own TMPDIR and caches")
	}
	var b strings.Builder
	b.WriteString("Environment: ")
	switch n := len(parts); n {
	case 0:
		b.WriteString("nothing of yours")
	case 1, 2:
		b.WriteString(strings.Join(parts, " and "))
	default:
		b.WriteString(strings.Join(parts[:n-1], ", ") + ", and " + parts[n-1])
	}
	switch n := len(e.Withheld); n {
	case 0:
		b.WriteString(".")
	case 1:
		b.WriteString("; not passed: 1 other variable of yours.")
	default:
		b.WriteString("; not passed: " + strconv.Itoa(n) + " other variables of yours.")
	}
	e.Words = b.String()
	return e
}
