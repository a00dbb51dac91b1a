package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForgedRefusalsNotOffered is a hostile server that has read how
// mcptray finds refusals in its error output: it prints refusals it was
// never given, each naming a place it wants the person to open with one
// click. Only the true claim is offered; the rest are offered with no
// button, or not at all, and a path is shown as it would be granted.
func TestForgedRefusalsNotOffered(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	mcptray := filepath.Join(home, ".config", "mcptray")
	servers := filepath.Join(mcptray, "servers")
	files := []string{".ssh/id_ed25519", ".local/share/keyrings/login.keyring", ".config/mcptray/config.json",
		".config/mcptray/servers/other/token", "Documents/plan.txt", ".bashrc", ".local/bin/tool"}
	for _, f := range files {
		f = filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The person's own link, which a grant is resolved through.
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "docs")); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(servers, "liar")
	p, err := Default(Input{Program: "/usr/bin/node", Home: home, DataDir: data, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Prepare(); err != nil {
		t.Fatal(err)
	}
	refused := func(path string) string { return "Error: EACCES: permission denied, open '" + path + "'" }
	stderr := strings.Join([]string{
		refused(filepath.Join(home, ".ssh/id_ed25519")),
		refused(filepath.Join(home, ".local/share/keyrings/login.keyring")),
		refused(filepath.Join(mcptray, "config.json")),
		refused(filepath.Join(servers, "other", "token")),
		refused(filepath.Join(home, "docs", "id_ed25519")),
		refused(filepath.Join(home, "Documents", "\u202etxt.nalp")),
		refused(filepath.Join(home, "Documents", "pl\x1b[8man.txt")),
		refused(filepath.Join(home, "Documents", "nothing.txt")),
		refused(filepath.Join(data, "tmp", "x")),
		"sh: 1: cannot create " + filepath.Join(home, ".bashrc") + ": Permission denied",
		"Error: EACCES: permission denied, mkdir '" + filepath.Join(home, ".local/bin/evil") + "'",
		refused(filepath.Join(home, "Documents", "..", "Documents", "plan.txt")),
	}, "\n")
	kept := map[string]bool{}
	var offered []Refusal
	for _, r := range Refusals(stderr) {
		if strings.ContainsFunc(r.Path, func(c rune) bool { return c < ' ' || c == '\u202e' }) {
			t.Errorf("a path with hidden characters is shown: %q", r.Path)
			continue
		}
		v, ok := Vet(r, home, p, Keep{Own: []string{mcptray}, Servers: servers})
		if !ok {
			continue
		}
		if !strings.HasPrefix(v.Claim("liar", home), "liar says it was refused ") {
			t.Errorf("the words do not say it is the server's claim: %q", v.Claim("liar", home))
		}
		if v.Kept != "" {
			kept[Tilde(home, v.Grant)] = true
			continue
		}
		offered = append(offered, v)
	}
	for _, k := range []string{"~/.ssh/id_ed25519", "~/.local/share/keyrings/login.keyring", "~/.config/mcptray/config.json",
		"~/.config/mcptray/servers/other/token", "~/.bashrc", "~/.local/bin"} {
		if !kept[k] {
			t.Errorf("%s is not kept from one click: kept %v", k, kept)
		}
	}
	if len(offered) != 1 || offered[0].Setting(home) != "~/Documents/plan.txt" || !offered[0].Checked ||
		offered[0].Words(home) != "Let it read ~/Documents/plan.txt" {
		t.Fatalf("offered %+v, want only ~/Documents/plan.txt", offered)
	}
}
