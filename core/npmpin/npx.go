package npmpin

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Spec is what a server's command asks npm for: the package, the version
// or range or tag it names ("" when it names none), the program of the
// package to run ("" for the package's own) and that program's arguments.
type Spec struct {
	Package string
	Want    string
	Bin     string
	Args    []string
	// Image says Package is a container image that docker run names
	// (image.go): pinned by its digest, not by npm.
	Image bool `json:",omitempty"`
	// Podman says podman runs the image, not docker: its credentials
	// are podman's (ocipin.Spec.Podman).
	Podman bool `json:",omitempty"`
}

// Request is the package as npm reads it on a command line: name@want,
// or name@latest when the command named no version.
func (s Spec) Request() string {
	if s.Image {
		return s.Package
	}
	want := s.Want
	if want == "" {
		want = "latest"
	}
	return s.Package + "@" + want
}

// namePattern is an npm package's name, scoped or not: what Detect takes
// for a package. A path, a URL, a git or tarball spec is not one.
var namePattern = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// wantPattern is a version, a range or a tag; not a URL nor a path.
var wantPattern = regexp.MustCompile(`^[A-Za-z0-9.^~<>=|* +-]+$`)

// Detect reads a server's command: npx with the flags that only answer its
// question (-y, --yes, -q, --quiet) and a package, or npx --package=pkg
// (-p pkg) and a program. A command with any other flag before the
// package, or a package named by path, URL or git, is not detected, and
// runs as it is written.
func Detect(command string, args []string) (Spec, bool) {
	base := strings.TrimSuffix(filepath.Base(command), ".cmd")
	if base != "npx" {
		return Spec{}, false
	}
	var s Spec
	pkg := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet":
			continue
		case a == "-p" || a == "--package":
			if i+1 >= len(args) || pkg != "" {
				return Spec{}, false
			}
			i++
			pkg = args[i]
			continue
		case strings.HasPrefix(a, "--package="):
			if pkg != "" {
				return Spec{}, false
			}
			pkg = strings.TrimPrefix(a, "--package=")
			continue
		case a == "--":
			if i+1 >= len(args) {
				return Spec{}, false
			}
			i++
			a = args[i]
		case strings.HasPrefix(a, "-"):
			return Spec{}, false // a flag whose meaning we would have to guess
		}
		// a is the package (or, after --package, the program).
		if pkg != "" {
			if !namePattern.MatchString(a) {
				return Spec{}, false
			}
			s.Bin = a
		} else {
			pkg = a
		}
		s.Args = append([]string(nil), args[i+1:]...)
		break
	}
	if pkg == "" {
		return Spec{}, false
	}
	name, want := splitSpec(pkg)
	if !namePattern.MatchString(name) || (want != "" && !wantPattern.MatchString(want)) {
		return Spec{}, false
	}
	s.Package, s.Want = name, want
	return s, true
}

// splitSpec splits name@want, the name perhaps scoped (@scope/name@1.2.3).
func splitSpec(p string) (name, want string) {
	at := strings.LastIndex(p, "@")
	if at <= 0 {
		return p, ""
	}
	return p[:at], p[at+1:]
}
