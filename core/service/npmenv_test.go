package service

import (
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service/secretkeep"
)

// TestNpmEnvSecretsOnlyForYourOwnServers: a ${secret:NAME} in a server's
// npm config variables is read from the keychain for a server of the
// person's own config; one of a project's config (read before its
// approval, and npm runs outside the sandbox and its network policy) is
// not, so that a changed project file cannot have npm hand the token kept
// for its server to a host the file names. The variable is left out.
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
		{config.Server{Name: "theirs", ConfigName: "theirs", Scope: config.Project, Origin: config.Origin{File: h.dir + "/proj/.mcp.json"}, Env: env}, false},
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
