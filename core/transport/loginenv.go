package transport

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// loginEnvTimeout bounds running the login shell. A slow profile is common
// (nvm, conda); a profile that waits for input or never exits is not, and
// must not hold up every server's start.
const loginEnvTimeout = 5 * time.Second

var loginEnvCache = &envCache{load: loadLoginEnv}

// LoginEnv returns the environment the person's login shell sets up, so that
// PATH holds what their profile adds (nvm, Homebrew, ~/.local/bin): an app
// started from a desktop or a Dock does not inherit it, and servers run as
// `npx …` or `uvx …` would not be found. The shell runs once, bounded by 5 s,
// and the answer is kept for the life of the process. If the shell cannot be
// run or read, and always on Windows (where GUI apps get the person's PATH),
// it is this process's environment instead. Either way, common tool folders
// that exist (/opt/homebrew/bin, ~/.cargo/bin, ~/.bun/bin, …) are added at
// the end of PATH when missing. If ctx ends first, LoginEnv returns that
// fallback without keeping it, so a later call tries the shell again.
//
// The result may hold secrets the person's profile exports: never log it.
func LoginEnv(ctx context.Context, logger *slog.Logger) []string {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return loginEnvCache.get(ctx, logger)
}

// KnownLoginEnv returns LoginEnv's answer when it has one already (a
// server has started), without running the shell: for words about what a
// server gets, which must not wait for the shell.
func KnownLoginEnv() ([]string, bool) {
	c := loginEnvCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ok {
		return nil, false
	}
	return slices.Clone(c.env), true
}

// envCache runs load once for all callers, however many ask at once, and
// keeps its answer, or the fallback when it fails.
type envCache struct {
	load func(ctx context.Context, logger *slog.Logger) ([]string, error)

	mu      sync.Mutex
	env     []string
	ok      bool          // env is the answer
	loading chan struct{} // closed when the load under way ends
	loads   int           // how many times load ran, for tests
	// waiting, if set, is called when a caller begins to wait for the
	// load under way, for tests.
	waiting func()
}

func (c *envCache) get(ctx context.Context, logger *slog.Logger) []string {
	for {
		c.mu.Lock()
		if c.ok {
			env := slices.Clone(c.env)
			c.mu.Unlock()
			return env
		}
		if w := c.loading; w != nil {
			c.mu.Unlock()
			if c.waiting != nil {
				c.waiting()
			}
			select {
			case <-w:
				continue
			case <-ctx.Done():
				return fallbackEnv()
			}
		}
		w := make(chan struct{})
		c.loading = w
		c.loads++
		c.mu.Unlock()

		env, err := c.load(ctx, logger)

		c.mu.Lock()
		c.loading = nil
		close(w)
		switch {
		case err == nil:
			c.env, c.ok = env, true
		case ctx.Err() != nil:
			// The caller gave up, not the shell: let the next caller try.
			c.mu.Unlock()
			return fallbackEnv()
		default:
			logger.Warn("cannot read the login shell's environment; servers get mcptray's own, with common tool folders", "err", err)
			c.env, c.ok = fallbackEnv(), true
		}
		env = slices.Clone(c.env)
		c.mu.Unlock()
		return env
	}
}

// fallbackEnv is this process's environment with the common tool folders
// that exist added to PATH.
func fallbackEnv() []string {
	home, _ := os.UserHomeDir()
	return withToolDirs(os.Environ(), toolDirs(home, os.Getenv))
}

// withToolDirs adds to env's PATH, at the end, each of dirs that exists and
// is not on it already. The person's own order always wins.
func withToolDirs(env []string, dirs []string) []string {
	env = slices.Clone(env)
	key, i := "PATH", -1
	for j := len(env) - 1; j >= 0; j-- {
		if k, _, ok := envSplit(env[j]); ok && k == envNameKey("PATH") {
			key, i = env[j][:len(k)], j // keep the entry's own spelling ("Path")
			break
		}
	}
	var list []string
	if i >= 0 {
		list = filepath.SplitList(env[i][len(key)+1:])
	}
	have := make(map[string]bool, len(list))
	for _, d := range list {
		have[filepath.Clean(d)] = true
	}
	added := false
	for _, d := range dirs {
		if d == "" || have[filepath.Clean(d)] {
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		have[filepath.Clean(d)] = true
		list = append(list, d)
		added = true
	}
	if !added {
		return env
	}
	entry := key + "=" + joinList(list)
	if i >= 0 {
		env[i] = entry
	} else {
		env = append(env, entry)
	}
	return env
}

// envNameKey is name as envSplit returns names.
func envNameKey(name string) string {
	k, _, _ := envSplit(name + "=")
	return k
}

func joinList(list []string) string {
	var b bytes.Buffer
	for i, d := range list {
		if i > 0 {
			b.WriteRune(filepath.ListSeparator)
		}
		b.WriteString(d)
	}
	return b.String()
}

// parseEnvOutput reads the environment printed between two marks, as env -0
// prints it (NUL after each entry) or as plain env does (one per line, a
// value with a newline running on to lines that do not start NAME=).
// Whatever the profile printed around the marks is ignored.
func parseEnvOutput(out []byte, mark string) ([]string, error) {
	i := bytes.Index(out, []byte(mark))
	j := bytes.LastIndex(out, []byte(mark))
	if i < 0 || j <= i {
		return nil, errors.New("the shell did not print its environment")
	}
	body := out[i+len(mark) : j]
	var env []string
	if bytes.IndexByte(body, 0) >= 0 {
		for _, e := range bytes.Split(body, []byte{0}) {
			if _, _, ok := envSplit(string(e)); ok {
				env = append(env, string(e))
			}
		}
	} else {
		for _, line := range bytes.Split(body, []byte{'\n'}) {
			switch {
			case startsEnvEntry(line):
				env = append(env, string(line))
			case len(env) > 0:
				env[len(env)-1] += "\n" + string(line)
			}
		}
		if n := len(env); n > 0 {
			env[n-1] = string(bytes.TrimSuffix([]byte(env[n-1]), []byte("\n")))
		}
	}
	if len(env) == 0 {
		return nil, errors.New("the shell printed an empty environment")
	}
	return env, nil
}

// startsEnvEntry reports whether line starts NAME=, NAME a shell variable's
// name.
func startsEnvEntry(line []byte) bool {
	for i, c := range line {
		switch {
		case c == '=':
			return i > 0
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', i > 0 && '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return false
}

// shellOnlyVars are variables that describe the shell mcptray ran, not the
// person's environment: a server should not inherit the shell's working
// folder as PWD, or its depth as SHLVL.
var shellOnlyVars = []string{"PWD", "OLDPWD", "SHLVL", "_", resolvingEnvVar}

// resolvingEnvVar is set while mcptray runs the login shell, so that a
// profile can tell (and, say, skip starting tmux).
const resolvingEnvVar = "MCPTRAY_RESOLVING_ENVIRONMENT"

func withoutShellVars(env []string) []string {
	return slices.DeleteFunc(env, func(kv string) bool {
		k, _, _ := envSplit(kv)
		return slices.Contains(shellOnlyVars, k)
	})
}
