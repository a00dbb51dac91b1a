package sandbox

import (
	"slices"
	"testing"
)

// TestFromLogin: of the person's environment a server gets what runs
// programs; a token, a key, code to load and the agent's socket stay out,
// a family's setting too when its name says it holds a secret.
func TestFromLogin(t *testing.T) {
	login := []string{
		"PATH=/usr/bin", "HOME=/home/p", "LANG=C.UTF-8", "LC_ALL=C", "NVM_DIR=/home/p/.nvm", "MISE_DATA_DIR=/m",
		"SSL_CERT_FILE=/etc/ca.pem", "HTTPS_PROXY=http://proxy:3128", "DISPLAY=:0",
		"GITHUB_TOKEN=t", "AWS_SECRET_ACCESS_KEY=k", "OPENAI_API_KEY=k", "MISE_GITHUB_TOKEN=t", "ASDF_API_KEY=k",
		"NODE_OPTIONS=--require /home/p/hook.js", "LD_PRELOAD=/x.so", "SSH_AUTH_SOCK=/run/agent", "npm_config_registry=https://u:p@r",
		"LC_=odd", "noequals",
	}
	kept, withheld := FromLogin(login)
	wantKept := []string{"PATH=/usr/bin", "HOME=/home/p", "LANG=C.UTF-8", "LC_ALL=C", "NVM_DIR=/home/p/.nvm", "MISE_DATA_DIR=/m",
		"SSL_CERT_FILE=/etc/ca.pem", "HTTPS_PROXY=http://proxy:3128", "DISPLAY=:0"}
	if !slices.Equal(kept, wantKept) {
		t.Errorf("kept %q\nwant %q", kept, wantKept)
	}
	wantWithheld := []string{"ASDF_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "LC_", "LD_PRELOAD", "MISE_GITHUB_TOKEN",
		"NODE_OPTIONS", "OPENAI_API_KEY", "SSH_AUTH_SOCK", "npm_config_registry"}
	if !slices.Equal(withheld, wantWithheld) {
		t.Errorf("withheld %q\nwant %q", withheld, wantWithheld)
	}
}

// TestDesktopUnset: a sandboxed server that may use no other program's
// socket loses the desktop's addresses; one that may keeps them.
func TestDesktopUnset(t *testing.T) {
	home := t.TempDir()
	in := Input{Program: "/usr/bin/node", Home: home, DataDir: home + "/data"}
	p, err := Default(in)
	if err != nil {
		t.Fatal(err)
	}
	env := p.Environ([]string{"DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus", "PATH=/usr/bin"})
	if slices.Contains(env, "DISPLAY=:0") || !slices.Contains(env, "PATH=/usr/bin") || slices.ContainsFunc(env, func(kv string) bool { return kv[:4] == "DBUS" }) {
		t.Errorf("sandboxed: %q", env)
	}
	in.Settings.Sockets = true
	if p, _ = Default(in); !slices.Contains(p.Environ([]string{"DISPLAY=:0"}), "DISPLAY=:0") {
		t.Error("a server that may use sockets lost DISPLAY")
	}
}
