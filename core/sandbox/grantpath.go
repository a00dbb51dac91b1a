package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GrantPath is the one spelling of a folder or file a person allows a
// server (or takes back): whatever way it was written, ~/x, $HOME/x,
// ${HOME}/x, /home/ann/x, x/ or x/../x, or through a symlink, it comes
// out the same. The home's prefixes are expanded, symlinks resolved as far
// as the path exists (a folder not made yet keeps its last names), and a
// path in the home, however the home's own symlinks resolve, is written
// under home as given. A relative path is an error: it would depend on
// the folder mcptray was started in.
func GrantPath(home, p string) (string, error) {
	p, err := expandGrant(home, p)
	if err != nil {
		return "", err
	}
	home = filepath.Clean(home)
	p = resolve(p)
	if rh := resolve(home); rh != home && within(rh, p) {
		rel, _ := filepath.Rel(rh, p)
		p = filepath.Join(home, rel)
	}
	return p, nil
}

// expandGrant is p with the home's prefixes expanded, cleaned; a relative
// path is an error.
func expandGrant(home, p string) (string, error) {
	p = strings.TrimSpace(p)
	home = filepath.Clean(home)
	for _, prefix := range []string{"~", "$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || rest[0] == '/') {
			p = home + rest
			break
		}
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not a full path: give it from / or ~/ (~/Documents, say)", p)
	}
	return filepath.Clean(p), nil
}

// GrantPathIn is GrantPath's spelling of the grant p for a server that
// may write writable (its policy's Write), except that a grant in one of
// those folders is not resolved through it: a link there may be the
// server's, leading the grant where it chose (~/.ssh). The launcher opens
// it beneath that folder, through no link (openRule).
func GrantPathIn(home, p string, writable []string) (string, error) {
	return grantIn(home, p, writable)
}

func grantIn(home, p string, writable []string) (string, error) {
	d, err := GrantPath(home, p)
	if err != nil {
		return "", err
	}
	if plain, _ := expandGrant(home, p); inWritable(writable, plain) {
		return plain, nil
	}
	return d, nil
}

// resolve is p with its symlinks resolved as far as it exists, cleaned.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	p = filepath.Clean(p)
	var rest []string
	for d := p; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		} else if !os.IsNotExist(err) || d == filepath.Dir(d) {
			return p // unreadable on the way, or nothing of it exists
		}
		rest = append([]string{filepath.Base(d)}, rest...)
	}
}
