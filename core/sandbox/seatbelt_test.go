package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProfileShutsTheDoors: the macOS profile of a server behind the
// proxy lets it connect by TCP to the proxy's port and the person's ports
// on this computer and nowhere else, to no Unix socket by name, and to
// none of the keychain's services; what a later rule allows, an earlier
// deny cannot take back in Seatbelt (the last rule that matches decides),
// so each deny must come after every allow of its kind.
func TestProfileShutsTheDoors(t *testing.T) {
	got := Profile(Policy{Read: []string{"/usr"}, Write: []string{"/Users/ann/Library/mcptray/servers/w"}, RestrictTCP: true, Ports: []int{8123, 5432}})
	for _, want := range []string{
		`(allow network-outbound (remote tcp "localhost:8123"))`,
		`(allow network-outbound (remote tcp "localhost:5432"))`,
		`(deny network-outbound (remote unix-socket))`,
		`(global-name "com.apple.SecurityServer")`,
		`(global-name "com.apple.securityd")`,
		`(global-name "com.apple.secd")`,
		`(global-name-regex #"^com\.apple\.security\.")`,
		`(global-name "com.apple.system.opendirectoryd.libinfo")`, // who the user is: node's os.userInfo()
		`(global-name "com.apple.trustd.agent")`,                  // checking TLS certificates (Go's crypto/x509)
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %q:\n%s", want, got)
		}
	}
	for _, never := range []*regexp.Regexp{
		regexp.MustCompile(`\(allow network\*\)`),
		regexp.MustCompile(`\(allow network-outbound\)`),
		regexp.MustCompile(`\(allow network-outbound \(remote unix-socket`),
		regexp.MustCompile(`\(allow network-outbound \(remote (tcp|ip) "\*:`),
		regexp.MustCompile(`\(allow mach-lookup\)`),
		regexp.MustCompile(`launchservicesd|pasteboard`),
	} {
		if loc := never.FindStringIndex(got); loc != nil {
			t.Errorf("the profile allows %q:\n%s", got[loc[0]:loc[1]], got)
		}
	}
	lastAllow := func(kind string) int { return strings.LastIndex(got, "(allow "+kind) }
	if d := strings.Index(got, "(deny mach-lookup"); d < 0 || d < lastAllow("mach-lookup") {
		t.Errorf("the keychain's deny comes before an allow of mach-lookup:\n%s", got)
	}
	if d := strings.Index(got, "(deny network-outbound (remote unix-socket))"); d < lastAllow("network") {
		t.Errorf("the Unix sockets' deny comes before an allow of the network:\n%s", got)
	}

	// With no proxy TCP is left open, as on Linux; Unix sockets and the
	// keychain stay shut.
	open := Profile(Policy{})
	if !strings.Contains(open, "(allow network*)") || strings.Index(open, "(deny network-outbound (remote unix-socket))") < strings.Index(open, "(allow network*)") ||
		!strings.Contains(open, `(global-name "com.apple.SecurityServer")`) {
		t.Errorf("with no proxy:\n%s", open)
	}
	// docker's client needs its daemon's socket (Policy.Sockets).
	docker := Profile(Policy{RestrictTCP: true, Ports: []int{8123}, Sockets: true})
	if strings.Contains(docker, "(deny network-outbound (remote unix-socket))") || !strings.Contains(docker, "(allow network-outbound (remote unix-socket))") {
		t.Errorf("docker's profile:\n%s", docker)
	}
}

// TestProfileCaches: on a Mac, too, a server writes its own data folder,
// where its package managers' caches are, and none of the person's shared
// caches: ~/.npm, ~/.cache, ~/Library/Caches, ~/go.
func TestProfileCaches(t *testing.T) {
	home := "/Users/ann"
	data := home + "/Library/Application Support/mcptray/servers/w"
	p, err := Default(Input{Program: "/opt/homebrew/bin/npx", Args: []string{"-y", "weather"}, Home: home, DataDir: data, EgressPort: 8123})
	if err != nil {
		t.Fatal(err)
	}
	got := Profile(p)
	write := got[strings.Index(got, "(allow file-read* file-write*"):]
	write = write[:strings.Index(write, "\n)")]
	for _, never := range []string{home + "/.npm", home + "/.cache", home + "/Library/Caches", home + "/go", home + "/.local"} {
		if strings.Contains(write, `"`+never) {
			t.Errorf("the server may write %s:\n%s", never, write)
		}
	}
	if !strings.Contains(write, `(subpath "`+data+`")`) || p.Env["npm_config_cache"] != filepath.Join(data, "cache", "npm") {
		t.Errorf("its own folder: npm_config_cache %q, writes\n%s", p.Env["npm_config_cache"], write)
	}
}

// TestProfileResolvesSymlinks: Seatbelt matches the path a file really
// has (/private/tmp for /tmp, /private/var for /var), so a folder reached
// through a symlink is written both ways.
func TestProfileResolvesSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "private", "data")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "data")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got := Profile(Policy{Write: []string{link}})
	for _, want := range []string{`(subpath "` + link + `")`, `(subpath "` + real + `")`} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %s:\n%s", want, got)
		}
	}
}

// TestProfileFollowsNoPlantedLink: a folder the server's rule names in
// what it may write (its project's out) is a link it planted to ~/.ssh:
// the profile names the link, which Seatbelt matches by its real path,
// and not where it leads.
func TestProfileFollowsNoPlantedLink(t *testing.T) {
	dir := t.TempDir()
	project, ssh := filepath.Join(dir, "home", "code", "app"), filepath.Join(dir, "home", ".ssh")
	for _, d := range []string{project, ssh} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(project, "out")
	if err := os.Symlink(ssh, out); err != nil {
		t.Fatal(err)
	}
	got := Profile(Policy{Read: []string{out}, Write: []string{project, out}})
	if strings.Contains(got, `"`+ssh+`"`) {
		t.Errorf("the profile follows the server's link to %s:\n%s", ssh, got)
	}
}
