package npmpin

import (
	"maps"
	"slices"
	"strings"
)

// npm reads its config from its environment as well as from its .npmrc
// files, above them: each variable npm_config_KEY (whatever the case of
// npm_config_) is KEY, and a KEY that does not begin with // is read in
// lower case with its '_' (past the first character) as '-'
// (npm_config_strict_ssl is strict-ssl). A registry's credential can be
// given so: npm_config_//npm.corp.example/:_authToken=….
//
// A server's config may set such variables in its env, which npx would
// read: ServerEnv takes those that say which registry npm asks (its
// registry, a scope's) and that registry's own keys (its token, its
// client certificate), for mcptray's npm to resolve what npx would, and
// leaves out every other. Some would make npm, run outside any sandbox,
// run or read what the config names (git, the program npm runs for a git
// dependency; userconfig; cache; script-shell; node-options). Others
// would hand the person's own credentials to whoever the config names: a
// project's config, read before the person approved it, that set
// https-proxy and strict-ssl=false (or a cafile of its own) would have
// npm send the token of the person's .npmrc for their company's registry
// through a proxy that reads it. The proxy and the certificates trusted
// are mcptray's environment's and the .npmrc files' alone.

// envKey is the config key an environment variable gives npm, and
// whether it gives one.
func envKey(name string) (string, bool) {
	const prefix = "npm_config_"
	if len(name) <= len(prefix) || !strings.EqualFold(name[:len(prefix)], prefix) {
		return "", false
	}
	key := name[len(prefix):]
	if strings.HasPrefix(key, "//") {
		return key, true // a registry's own key, as written
	}
	return strings.ToLower(key[:1] + strings.ReplaceAll(key[1:], "_", "-")), true
}

// registryKeys are the keys a registry's own (//host/path/:key) may be.
var registryKeys = []string{"_authToken", "_auth", "username", "_password", "certfile", "keyfile"}

// ServerEnv is, of a server config's env, the npm config variables that
// say which registry npm asks, and that registry's own keys: "NAME=value"
// each, in the order of their names; and the names of the npm config
// variables left out.
func ServerEnv(env map[string]string) (keep, left []string) {
	for _, name := range slices.Sorted(maps.Keys(env)) {
		key, ok := envKey(name)
		if !ok {
			continue
		}
		if reachKey(key) {
			keep = append(keep, name+"="+env[name])
		} else {
			left = append(left, name)
		}
	}
	return keep, left
}

// reachKey reports whether key (as npm reads it) says which registry npm
// asks, or is a registry's own.
func reachKey(key string) bool {
	if key == "registry" {
		return true
	}
	if strings.HasPrefix(key, "@") && strings.HasSuffix(key, ":registry") {
		return true
	}
	if !strings.HasPrefix(key, "//") {
		return false
	}
	i := strings.LastIndex(key, ":")
	return i > 2 && slices.Contains(registryKeys, key[i+1:])
}

// SameKey reports whether two environment variables give npm the same
// config key (npm_config_registry and NPM_CONFIG_REGISTRY do): a
// server's own replaces mcptray's.
func SameKey(a, b string) bool {
	ka, oka := envKey(a)
	kb, okb := envKey(b)
	return oka && okb && ka == kb
}

// envConfig is the config npm reads from its environment, env: its
// registries' own keys (//host/path/:key), ${VAR} read as in an .npmrc;
// the later variable of two that give the same key.
func (n *NPM) envConfig(env []string, keys map[string]string) {
	for _, kv := range env {
		name, v, ok := strings.Cut(kv, "=")
		key, isKey := envKey(name)
		if !ok || !isKey || v == "" || !strings.HasPrefix(key, "//") {
			continue
		}
		keys[n.envReplace(key)] = n.envReplace(v)
	}
}
