package egress

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// nodeRunners are the commands that run a server on the Node.js found on
// the PATH.
var nodeRunners = map[string]bool{"node": true, "npx": true, "npm": true, "pnpm": true, "pnpx": true, "yarn": true}

// nodeVersions caches `node --version` by the program's path and time of
// change: the words of every snapshot ask.
var nodeVersions sync.Map // string -> string

// RunVersion runs program --version and returns what it printed. mcptray
// never runs a server's runtime itself: the one it gives runs it in the
// server's own sandbox (sandbox.Look), since the runtime may lie in a
// folder the server may change.
type RunVersion func(ctx context.Context, program string) (string, error)

// NodeIgnoresProxy reports whether command, run with env, starts a
// Node.js that ignores the proxy variables, and its version ("v20.20.2"),
// which run finds out. Node's own http, https and fetch honour them only
// from Node 22.21 and 24.5 (NODE_USE_ENV_PROXY): on an older Node a
// sandboxed server's own requests go straight out, and the sandbox
// refuses them. npm reads the variables itself, so npx's installs work on
// any Node.
func NodeIgnoresProxy(command string, env []string, run RunVersion) (version string, ignores bool) {
	name := strings.ToLower(filepath.Base(command))
	if !nodeRunners[name] {
		return "", false
	}
	node := command
	if name != "node" || !filepath.IsAbs(command) {
		node = lookNode(env)
	}
	if node == "" {
		return "", false
	}
	version = nodeVersion(node, run)
	return version, version != "" && !nodeHonoursProxy(version)
}

// lookNode finds node on env's PATH.
func lookNode(env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, "node")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// nodeVersion is what node --version prints, run by run, "" when it
// cannot say within two seconds.
func nodeVersion(node string, run RunVersion) string {
	fi, err := os.Stat(node)
	if err != nil {
		return ""
	}
	key := node + "\x00" + fi.ModTime().String()
	if v, ok := nodeVersions.Load(key); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// A look that failed is not tried again at every snapshot, until node
	// changes; one that ran out of time is.
	out, err := run(ctx, node)
	if ctx.Err() != nil {
		return ""
	}
	v := strings.TrimSpace(out)
	if err != nil {
		v = ""
	}
	nodeVersions.Store(key, v)
	return v
}

// nodeHonoursProxy reports whether Node version v ("v22.21.0") sends its
// own requests through the proxy variables with NODE_USE_ENV_PROXY=1.
func nodeHonoursProxy(v string) bool {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	switch {
	case major >= 25:
		return true
	case major == 24:
		return minor >= 5
	case major == 22:
		return minor >= 21
	}
	return false
}
