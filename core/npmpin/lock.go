package npmpin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// Package is one package of a tree, as its lockfile records it.
type Package struct {
	// Path is where it lies in the tree (node_modules/a/node_modules/b).
	Path      string `json:"path"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
	// Scripts: the package declares install scripts, which never run.
	Scripts bool `json:"scripts,omitempty"`
}

// Lock is a resolved tree: every package with its exact version and
// integrity, and the hash that names the tree.
type Lock struct {
	// Hash is the SHA-256 of each package's path, version and integrity,
	// in order of path, with the root's dependencies: two trees with the
	// same Hash hold the same bytes, whatever registry served them.
	Hash     string    `json:"hash"`
	Root     string    `json:"root"` // the pinned package's name
	Packages []Package `json:"packages"`
}

// Top is the pinned package itself.
func (l Lock) Top() (Package, bool) {
	i := slices.IndexFunc(l.Packages, func(p Package) bool { return p.Path == "node_modules/"+l.Root })
	if i < 0 {
		return Package{}, false
	}
	return l.Packages[i], true
}

// Scripts names the packages that declare install scripts.
func (l Lock) Scripts() []string {
	var out []string
	for _, p := range l.Packages {
		if p.Scripts {
			out = append(out, p.Name+"@"+p.Version)
		}
	}
	return out
}

// lockFile is the part of npm's package-lock.json (version 2 and 3) read
// here.
type lockFile struct {
	LockfileVersion int `json:"lockfileVersion"`
	Packages        map[string]struct {
		Name             string            `json:"name"`
		Version          string            `json:"version"`
		Resolved         string            `json:"resolved"`
		Integrity        string            `json:"integrity"`
		Link             bool              `json:"link"`
		HasInstallScript bool              `json:"hasInstallScript"`
		Dependencies     map[string]string `json:"dependencies"`
	} `json:"packages"`
}

// readLock reads the lockfile at path, for the tree whose root asks for
// the package root. A package without an integrity hash (from git, a
// folder or a link) cannot be pinned by content, and is an error.
func readLock(path, root string) (Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Lock{}, fmt.Errorf("reading the lockfile: %w", err)
	}
	var f lockFile
	if err := json.Unmarshal(data, &f); err != nil {
		return Lock{}, fmt.Errorf("reading the lockfile: %w", err)
	}
	if f.LockfileVersion < 2 || f.Packages == nil {
		return Lock{}, fmt.Errorf("reading the lockfile: version %d has no packages", f.LockfileVersion)
	}
	h := sha256.New()
	rootDeps := f.Packages[""].Dependencies
	for _, k := range slices.Sorted(maps.Keys(rootDeps)) {
		fmt.Fprintf(h, "root\x00%s\x00%s\n", k, rootDeps[k])
	}
	l := Lock{Root: root}
	for _, path := range slices.Sorted(maps.Keys(f.Packages)) {
		if path == "" {
			continue
		}
		e := f.Packages[path]
		if e.Link || e.Integrity == "" || !strings.HasPrefix(path, "node_modules/") {
			return Lock{}, fmt.Errorf("%s has no integrity hash in the lockfile (a link, a folder or git?): it cannot be pinned by its content", path)
		}
		name := e.Name
		if name == "" {
			name = path[strings.LastIndex(path, "node_modules/")+len("node_modules/"):]
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", path, e.Version, e.Integrity)
		l.Packages = append(l.Packages, Package{Path: path, Name: name, Version: e.Version, Integrity: e.Integrity, Scripts: e.HasInstallScript})
	}
	if _, ok := l.Top(); !ok {
		return Lock{}, fmt.Errorf("the lockfile does not hold %s", root)
	}
	l.Hash = hex.EncodeToString(h.Sum(nil))
	return l, nil
}
