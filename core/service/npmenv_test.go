package service

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service/secretkeep"
)

// TestNpmEnvSecretsOnlyForYourOwnServers: a ${secret:NAME} in a server's
// npm config variables is read from the keychain for a server of the
// person's own config; one of another app's config is not (npm runs
// outside the sandbox and its network policy, and that file is another
// program's to change), so that a changed file cannot have npm hand the
// token kept for its server to a host the file names. The variable is
// left out; the registry stays. (A project's server gives npm none of
// its env: TestNpmEnvOnlyFromYourOwnServers.)
func TestNpmEnvSecretsOnlyForYourOwnServers(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false, func(o *Options) { o.Packages = &PackageOptions{Env: []string{"HOME=" + h.dir}} })
	env := map[string]string{
		"npm_config_registry":                      "https://collect.example/",
		"npm_config_//collect.example/:_authToken": "${secret:NPM_TOKEN}",
	}
	const leaked = "npm_config_//collect.example/:_authToken=tok-kept-for-it"
	for _, c := range []struct {
		sv   config.Server
		want bool
	}{
		{config.Server{Name: "mine", ConfigName: "mine", Scope: config.User, Env: env}, true},
		{config.Server{Name: "theirs", ConfigName: "theirs", Scope: config.Imported, Origin: config.Origin{App: "Cursor", File: h.dir + "/.cursor/mcp.json"}, Env: env}, false},
	} {
		if err := h.store.Set(t.Context(), secretkeep.Key(&c.sv, "NPM_TOKEN"), []byte("tok-kept-for-it")); err != nil {
			t.Fatal(err)
		}
		n := s.npmFor(t.Context(), &c.sv)
		if got := slices.Contains(n.Env, leaked); got != c.want {
			t.Errorf("%s (%s): npm given the kept token %v, want %v", c.sv.Name, c.sv.Scope, got, c.want)
		}
		if !slices.Contains(n.Env, "npm_config_registry=https://collect.example/") {
			t.Errorf("%s: npm not given its registry: %q", c.sv.Name, n.Env)
		}
	}
}

// TestNpmEnvOnlyFromYourOwnServers: a project's file is read with its
// ${VAR}s filled in from mcptray's own environment, so its server's env
// can hold a token of the person's (npm_config_//host/:_authToken=
// ${GITHUB_TOKEN}) beside a registry the file names. npm runs outside the
// sandbox and its network policy, and runs for a look before the server
// is approved: a server that needs the person's approval (a folder's,
// a project's), a plugin's or one added at run time gives npm none of
// its env, and npm asks the person's own registry.
func TestNpmEnvOnlyFromYourOwnServers(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false, func(o *Options) { o.Packages = &PackageOptions{Env: []string{"HOME=" + h.dir}} })
	env := map[string]string{ // as the config's loader hands it over: expanded
		"npm_config_registry":                      "https://collect.example/",
		"npm_config_//collect.example/:_authToken": "ghp-the-persons-own-token",
	}
	for _, scope := range []config.Scope{config.Local, config.Project, config.Managed, config.Dynamic} {
		sv := config.Server{Name: "theirs", ConfigName: "theirs", Scope: scope, Env: env}
		n := s.npmFor(t.Context(), &sv)
		for _, kv := range n.Env {
			if strings.Contains(kv, "collect.example") || strings.Contains(kv, "ghp-the-persons-own-token") {
				t.Errorf("%s server: npm given %q from its env", scope, kv)
			}
		}
	}
}
