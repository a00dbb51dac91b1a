package conn

import (
	"os"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// TestServerEnvFromLogin: a token the person's login shell exports
// (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY) reaches no server, in its sandbox
// or without one; what runs programs does (PATH, the locale, a version
// manager's folder), and so does a variable its config names.
func TestServerEnvFromLogin(t *testing.T) {
	t.Parallel()
	for _, sandboxed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unsandboxed", true: "sandboxed"}[sandboxed], func(t *testing.T) {
			t.Parallel()
			o := testOptions()
			if sandboxed {
				o, _ = sandboxOptions(t)
			}
			// The person's login environment, as LoginEnv reads it.
			o.BaseEnv = append(slices.Clone(o.BaseEnv),
				"GITHUB_TOKEN=ghp_fromTheProfile", "AWS_SECRET_ACCESS_KEY=fromTheProfile", "MISE_GITHUB_TOKEN=fromTheProfile",
				"LANG=nl_NL.UTF-8", "LC_TIME=C.UTF-8", "NVM_DIR=/opt/nvm", "DISPLAY=:0")
			s := config.Server{Name: "envy", ConfigName: "envy", Scope: config.User, Transport: config.Stdio,
				Command: testServerBin, Args: []string{"-name", "envy"}, Env: map[string]string{"WEATHER_API_KEY": "from-its-config"}}
			m := newTestManager(t, o)
			if err := m.Apply(setOf(config.Entry{Server: s, Signature: config.Signature(&s), ApprovalKey: config.ApprovalKey(&s), Approval: config.NotNeeded})); err != nil {
				t.Fatal(err)
			}
			waitState(t, m, "envy", Connected)
			get := func(name string) (string, bool) {
				v, failed := callText(t, m, "envy", "env", `{"name":"`+name+`"}`)
				return v, !failed
			}
			for _, name := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MISE_GITHUB_TOKEN"} {
				if _, set := get(name); set {
					t.Errorf("the server got %s from the login environment", name)
				}
			}
			want := map[string]string{"PATH": os.Getenv("PATH"), "LANG": "nl_NL.UTF-8", "LC_TIME": "C.UTF-8", "NVM_DIR": "/opt/nvm", "WEATHER_API_KEY": "from-its-config"}
			for name, v := range want {
				if got, set := get(name); !set || got != v {
					t.Errorf("%s = %q (set %v), want %q", name, got, set, v)
				}
			}
			// The desktop's address: for a server without a sandbox (a
			// sign-in helper opens a browser through it), not for one that
			// can reach no other program's socket.
			if _, set := get("DISPLAY"); set == sandboxed {
				t.Errorf("DISPLAY set %v, sandboxed %v", set, sandboxed)
			}
		})
	}
}
