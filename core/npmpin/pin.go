package npmpin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptray/mcptray/core/ocipin"
)

// Pin is one resolved tree of a server's package, in a folder of its own.
type Pin struct {
	Spec Spec `json:"spec"`
	Lock Lock `json:"lock"`
	// Dir holds the tree: package.json, package-lock.json, node_modules.
	Dir string `json:"dir"`
	// Origin is where the pinned version says it was built, as the
	// registry's attestation said when it was pinned (attest.go); nil
	// when not asked.
	Origin *Origin `json:"origin,omitempty"`
	// Image is the container image a docker run server is pinned to
	// (image.go): then Lock.Hash is its digest's hex and Dir is "".
	Image *ocipin.Image `json:"image,omitempty"`
}

// Version is the pinned package's own version.
func (p Pin) Version() string {
	if p.Image != nil {
		return p.Image.Short()
	}
	top, _ := p.Lock.Top()
	return top.Version
}

// Short is the first twelve hex digits of the tree's hash, as people see
// it.
func (p Pin) Short() string {
	if len(p.Lock.Hash) < 12 {
		return p.Lock.Hash
	}
	return p.Lock.Hash[:12]
}

// rootManifest is the package.json of a pinned tree's folder: a name of
// its own, so that the lockfile holds nothing of the folder's.
const rootManifest = `{"name":"mcptray-pinned","private":true}` + "\n"

// Resolve asks npm which tree spec's request gives today, and keeps that
// tree's lockfile in a folder of its own under root (root/HASH), where
// Install installs it. npm reads the registry; nothing of the package runs.
func (n *NPM) Resolve(ctx context.Context, root string, spec Spec) (Pin, error) {
	return n.resolve(ctx, root, spec, false)
}

// ResolveInstall is Resolve and Install in one pass of npm (npm install
// checks each package against the integrity it records): a server's first
// pin costs what npx's first start does.
func (n *NPM) ResolveInstall(ctx context.Context, root string, spec Spec) (Pin, error) {
	return n.resolve(ctx, root, spec, true)
}

func (n *NPM) resolve(ctx context.Context, root string, spec Spec, install bool) (Pin, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return Pin{}, fmt.Errorf("making the packages' folder: %w", err)
	}
	stage, err := os.MkdirTemp(root, ".resolving-")
	if err != nil {
		return Pin{}, fmt.Errorf("making a folder to resolve in: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := os.WriteFile(filepath.Join(stage, "package.json"), []byte(rootManifest), 0o600); err != nil {
		return Pin{}, fmt.Errorf("resolving %s: %w", spec.Request(), err)
	}
	args := []string{"install", "--ignore-scripts", "--save-exact", spec.Request()}
	if !install {
		args = append(args, "--package-lock-only")
	}
	if _, err := n.run(ctx, stage, args...); err != nil {
		return Pin{}, fmt.Errorf("resolving %s: %w", spec.Request(), err)
	}
	lock, err := readLock(filepath.Join(stage, "package-lock.json"), spec.Package)
	if err != nil {
		return Pin{}, fmt.Errorf("resolving %s: %w", spec.Request(), err)
	}
	p := Pin{Spec: spec, Lock: lock, Dir: filepath.Join(root, lock.Hash[:32])}
	if _, err := readLock(filepath.Join(p.Dir, "package-lock.json"), spec.Package); err == nil && (!install || p.Installed()) {
		return p, nil // resolved (and installed) before
	}
	if install {
		// Its install scripts, in the server's sandbox, before it is
		// marked installed (scripts.go).
		if err := n.runScripts(ctx, stage, lock); err != nil {
			return Pin{}, fmt.Errorf("installing %s: %w", spec.Request(), err)
		}
		if err := writeFresh(filepath.Join(stage, "node_modules", installedMark), []byte(lock.Hash)); err != nil {
			return Pin{}, fmt.Errorf("installing %s: %w", spec.Request(), err)
		}
	}
	_ = os.RemoveAll(p.Dir) // a half-made folder of an earlier try
	if err := os.Rename(stage, p.Dir); err != nil {
		return Pin{}, fmt.Errorf("keeping the lockfile of %s: %w", spec.Request(), err)
	}
	return p, nil
}

// installedMark, in node_modules, holds the hash of the tree npm ci
// installed there.
const installedMark = ".mcptray-installed"

// Install installs p's tree into its folder exactly as its lockfile says,
// without install scripts (npm ci checks each package against its
// integrity hash), then runs those it declares in the server's sandbox
// (scripts.go), once: a folder installed before is checked and kept.
// A lockfile that no longer gives p's hash is an error, and nothing runs.
func (n *NPM) Install(ctx context.Context, p Pin) error {
	if err := p.Check(); err != nil {
		return err
	}
	mark := filepath.Join(p.Dir, "node_modules", installedMark)
	if b, err := os.ReadFile(mark); err == nil && string(b) == p.Lock.Hash {
		return nil
	}
	if err := forgetHidden(p.Dir); err != nil { // hiddencache.go
		return fmt.Errorf("installing %s: %w", p.Spec.Package, err)
	}
	if _, err := n.run(ctx, p.Dir, "ci", "--ignore-scripts"); err != nil {
		return fmt.Errorf("installing %s: %w", p.Spec.Package, err)
	}
	if err := n.runScripts(ctx, p.Dir, p.Lock); err != nil { // scripts.go
		return fmt.Errorf("installing %s: %w", p.Spec.Package, err)
	}
	if err := p.Check(); err != nil {
		return err
	}
	if err := writeFresh(mark, []byte(p.Lock.Hash)); err != nil {
		return fmt.Errorf("installing %s: %w", p.Spec.Package, err)
	}
	return nil
}

// Check says whether p's folder still holds the lockfile of p's tree.
func (p Pin) Check() error {
	if p.Image != nil {
		if err := p.Image.Valid(); err != nil {
			return err
		}
		if p.Lock.Hash != p.Image.Hex() {
			return fmt.Errorf("%s's pin changed: its digest is %s, not the %s approved", p.Spec.Package, p.Image.Short(), p.Short())
		}
		return nil
	}
	l, err := readLock(filepath.Join(p.Dir, "package-lock.json"), p.Spec.Package)
	if err != nil {
		return fmt.Errorf("checking %s's pinned tree: %w", p.Spec.Package, err)
	}
	if l.Hash != p.Lock.Hash {
		return fmt.Errorf("%s's pinned tree changed: its lockfile is %s, not the %s approved", p.Spec.Package, l.Hash[:12], p.Short())
	}
	return nil
}

// Installed says whether p's tree is installed in its folder.
func (p Pin) Installed() bool {
	if p.Image != nil {
		return true // docker pulls it by its digest
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, "node_modules", installedMark))
	return err == nil && string(b) == p.Lock.Hash
}

// Program is what runs p's server from its installed tree, with no npx
// and no registry: node and the file of the package's program (its bin
// that spec names, or the one bin it has, or the one named as the
// package), and the command's arguments. A program that is not node's
// script runs itself.
func (p Pin) Program() (command string, args []string, err error) {
	if p.Image != nil {
		return "", nil, fmt.Errorf("%s is an image: docker runs it (ImagePin)", p.Spec.Package)
	}
	pkgRel := filepath.Join("node_modules", filepath.FromSlash(p.Spec.Package))
	pkgDir := filepath.Join(p.Dir, pkgRel)
	// Through no link: an install script may have made one (links.go).
	if err := noLinkOn(p.Dir, filepath.Join(pkgRel, "package.json")); err != nil {
		return "", nil, fmt.Errorf("reading %s's package.json: %w", p.Spec.Package, err)
	}
	data, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", nil, fmt.Errorf("reading %s's package.json: %w", p.Spec.Package, err)
	}
	var m struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", nil, fmt.Errorf("reading %s's package.json: %w", p.Spec.Package, err)
	}
	bins := map[string]string{}
	var one string
	if json.Unmarshal(m.Bin, &one) == nil && one != "" {
		bins[m.Name[strings.LastIndex(m.Name, "/")+1:]] = one
	} else if err := json.Unmarshal(m.Bin, &bins); err != nil || len(bins) == 0 {
		return "", nil, fmt.Errorf("%s has no program (no bin in its package.json)", p.Spec.Package)
	}
	file := ""
	switch {
	case p.Spec.Bin != "":
		file = bins[p.Spec.Bin]
	case len(bins) == 1:
		for _, f := range bins {
			file = f
		}
	default:
		file = bins[p.Spec.Package[strings.LastIndex(p.Spec.Package, "/")+1:]]
	}
	if file == "" {
		return "", nil, fmt.Errorf("%s has no program named %q", p.Spec.Package, p.Spec.Bin)
	}
	rel := filepath.Clean(filepath.FromSlash(file))
	if !filepath.IsLocal(rel) {
		return "", nil, fmt.Errorf("%s's program %q lies outside the package", p.Spec.Package, file)
	}
	path := filepath.Join(pkgDir, rel)
	if err := noLinkOn(p.Dir, filepath.Join(pkgRel, rel)); err != nil {
		return "", nil, fmt.Errorf("%s's program %s: %w", p.Spec.Package, file, err)
	}
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		if err == nil {
			err = errors.New("not a plain file")
		}
		return "", nil, fmt.Errorf("%s's program %s: %w", p.Spec.Package, file, err)
	}
	args = append([]string(nil), p.Spec.Args...)
	if isNodeScript(path) {
		return "node", append([]string{path}, args...), nil
	}
	return path, args, nil
}

// isNodeScript: a .js, .mjs or .cjs file, or one whose #! line names node.
func isNodeScript(path string) bool {
	switch filepath.Ext(path) {
	case ".js", ".mjs", ".cjs":
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 128)
	k, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:k]), "\n")
	return strings.HasPrefix(line, "#!") && strings.Contains(line, "node")
}

// Remove removes p's folder.
func (p Pin) Remove() error {
	if p.Dir == "" {
		return nil
	}
	if err := os.RemoveAll(p.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s's tree: %w", p.Spec.Package, err)
	}
	return nil
}
