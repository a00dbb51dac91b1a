package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A refusal comes from a server's own error output (Refusals): whatever a
// server prints is its claim, and a hostile one prints refusals it was
// never given, naming what it wants the person to open with one click:
// ~/.ssh, the keyring's folder, mcptray's own files, another server's
// folder, a path whose hidden characters read as another. Vet decides
// what such a claim may become: a button that grants exactly the path it
// shows, only for a claim mcptray found true, and never for a place that
// holds secrets, runs programs outside any sandbox, or is mcptray's or
// another server's.

// kept are the places in the home that one click never grants, with why,
// relative to the home. A grant in one, or one that holds one, is offered
// with no button.
var kept = []struct{ path, why string }{
	{".ssh", "it holds your SSH keys"},
	{".gnupg", "it holds your GnuPG keys"},
	{".local/share/keyrings", "it holds your keyring"},
	{".password-store", "it holds your passwords"},
	{".aws", "it holds cloud credentials"},
	{".azure", "it holds cloud credentials"},
	{".config/gcloud", "it holds cloud credentials"},
	{".kube", "it holds cluster credentials"},
	{".docker", "it holds Docker's credentials"},
	{".netrc", "it holds passwords"},
	{".git-credentials", "it holds passwords"},
	{".pgpass", "it holds passwords"},
	{".pypirc", "it holds a token"},
	{".npmrc", "it holds a token"},
	{".vault-token", "it holds a token"},
	{".config/gh", "it holds GitHub's token"},
	{".mozilla", "it holds your browser's data and saved passwords"},
	{".config/google-chrome", "it holds your browser's data and saved passwords"},
	{".config/chromium", "it holds your browser's data and saved passwords"},
	{".config/BraveSoftware", "it holds your browser's data and saved passwords"},
	{".config/microsoft-edge", "it holds your browser's data and saved passwords"},
	{".thunderbird", "it holds your mail"},
	{".bashrc", "it runs when you open a terminal"},
	{".bash_profile", "it runs when you log in"},
	{".profile", "it runs when you log in"},
	{".zshrc", "it runs when you open a terminal"},
	{".zprofile", "it runs when you log in"},
	{".config/fish", "it runs when you open a terminal"},
	{".config/autostart", "it runs when you log in"},
	{".config/systemd", "it runs programs for you"},
	{"bin", "it holds programs you run outside any sandbox"},
}

// personCaches are the person's shared caches (the package doc's list):
// what is planted there runs later outside any sandbox.
var personCaches = []string{".npm", ".cache/uv", ".local/share/uv/tools", ".cache/pip", ".cache/pypoetry",
	".cache/yarn", ".local/share/pnpm", ".bun", ".deno", ".cache/deno", ".cache/go-build", "go/pkg/mod",
	".nuget/packages", ".cache/node", ".cache/ms-playwright"}

// Keep are mcptray's own places, which one click never grants.
type Keep struct {
	// Own are mcptray's folders: its config, data and logs.
	Own []string
	// Servers holds every server's own folder.
	Servers string
}

// keptSystem are the computer's own places, never granted with one click.
var keptSystem = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/root",
	"/proc", "/sys", "/dev", "/run", "/var/lib", "/var/run", "/var/log", "/var/spool"}

// hidden reports whether s holds a character that is not shown as
// itself: a control character (a terminal's escape), a format character
// (bidi overrides, zero-width spaces) or bytes that are not UTF-8.
func hidden(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.ContainsFunc(s, func(r rune) bool {
		return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) && r != ' '
	})
}

// Vet checks r, a refusal the server whose policy is p claims in its
// error output, for a person whose home is home; keep are mcptray's own
// places.
// It returns r with Grant (what allowing it grants, in the spelling a
// grant is kept in), Checked and Kept set, and false for a claim not to
// show at all: a path with hidden characters, a file that is not there
// (for a write, a folder that is not there to write in), or one its
// policy gives already.
func Vet(r Refusal, home string, p Policy, keep Keep) (Refusal, bool) {
	home = filepath.Clean(home)
	if hidden(r.Path) || !filepath.IsAbs(r.Path) || r.Path != filepath.Clean(r.Path) {
		return r, false
	}
	target := r.Path
	if r.Write {
		target = r.writeFolder(home)
	}
	grant, err := GrantPathIn(home, target, p.beneath())
	if err != nil || hidden(grant) {
		return r, false
	}
	r.Grant = grant
	// The claim checked: the file is there (for a write, the folder, or
	// the folder it would be made in), and its policy does not give it.
	there := grant
	if r.Write && target == r.Path {
		there = filepath.Dir(grant)
	}
	if _, err := os.Stat(there); err != nil {
		return r, false
	}
	givenBy := slices.Concat(p.Read, p.Write)
	if r.Write {
		givenBy = p.Write
	}
	for _, g := range givenBy {
		if g == grant || within(g, grant) {
			return r, false
		}
	}
	r.Checked = true
	r.Kept = keptWhy(grant, home, keep)
	return r, true
}

// keptWhy says why grant is not offered with one click, or "".
func keptWhy(grant, home string, keep Keep) string {
	near := func(place string) bool { return within(place, grant) || within(grant, place) }
	switch {
	case grant == "/" || within(grant, home):
		return "it would give your whole home"
	}
	for _, k := range kept {
		if near(filepath.Join(home, k.path)) {
			return k.why
		}
	}
	for _, d := range slices.Concat(homeRead, sharedRead, personCaches) {
		if near(filepath.Join(home, d)) {
			return "it holds programs you run outside any sandbox"
		}
	}
	if keep.Servers != "" && near(filepath.Clean(keep.Servers)) {
		return "it is another server's folder, or holds them"
	}
	for _, d := range keep.Own {
		if d != "" && near(filepath.Clean(d)) {
			return "it holds mcptray's own files"
		}
	}
	for _, d := range keptSystem {
		if near(d) {
			return "it is the system's"
		}
	}
	return ""
}

// Claim says r as the server's own words, not mcptray's: "weather says it
// was refused reading ~/Documents/plan.txt".
func (r Refusal) Claim(server, home string) string {
	what := r.Path
	if r.Grant != "" && !r.Write {
		what = r.Grant
	}
	verb := "reading "
	if r.Write {
		verb = "changing "
	}
	return server + " says it was refused " + verb + Tilde(home, what)
}
