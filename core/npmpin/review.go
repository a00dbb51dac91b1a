package npmpin

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/mcptray/mcptray/core/ocipin"
	"github.com/mcptray/mcptray/core/sanitize"
)

// Review is what changes from one pinned tree to another, for the person
// to read before the new one runs.
type Review struct {
	Package     string `json:"package"`
	FromVersion string `json:"fromVersion"`
	ToVersion   string `json:"toVersion"`
	FromHash    string `json:"fromHash"`
	ToHash      string `json:"toHash"`
	// FromOrigin and ToOrigin are where each version says it was built
	// (attest.go); nil when not asked.
	FromOrigin *Origin `json:"fromOrigin,omitempty"`
	ToOrigin   *Origin `json:"toOrigin,omitempty"`
	// Destinations are the added lines that send data somewhere: what the
	// person must not miss, first.
	Destinations []Destination `json:"destinations,omitempty"`
	// Packages are the packages added, removed and changed.
	Packages []PackageChange `json:"packages,omitempty"`
	// Files are the files changed, with their diffs.
	Files []FileChange `json:"files,omitempty"`
	// Hidden are the characters of added lines that do not show, or that
	// change how a line reads (bidi controls, zero-width and tag
	// characters, control characters): code that reads other than it
	// runs. At most maxHidden; HiddenMore counts the rest.
	Hidden     []HiddenChar `json:"hidden,omitempty"`
	HiddenMore int          `json:"hiddenMore,omitempty"`
	// Scripts is what became of the new tree's install scripts when it
	// was installed for review, in the server's sandbox (scripts.go);
	// nil when none of its packages declares any. NewScripts are those
	// of its packages that declare scripts and that the running tree
	// does not hold.
	Scripts    *ScriptsRun `json:"scripts,omitempty"`
	NewScripts []string    `json:"newScripts,omitempty"`
	// Image is what changes from one image to another, for a docker run
	// server (image.go); then the fields above of the code are empty.
	Image *ocipin.Review `json:"image,omitempty"`
}

// HiddenChar is one kind of hidden character on an added line of a file
// (sanitize.Found): "U+202E RIGHT-TO-LEFT OVERRIDE at line 12 of
// x/lib/send.js".
type HiddenChar struct {
	File string `json:"file"` // package/path/in/it.js
	sanitize.Found
}

// Words says where it is: "U+202E RIGHT-TO-LEFT OVERRIDE at line 12 of
// x/lib/send.js".
func (h HiddenChar) Words() string {
	return fmt.Sprintf("%s at line %d of %s", h.Found.Words(), h.Line, h.File)
}

// maxHidden bounds a review's hidden characters; the rest are counted.
const maxHidden = 50

// Destination is one added line that names a place data can go.
type Destination struct {
	File string `json:"file"` // package/path/in/it.js
	Line int    `json:"line"` // in the new file, from 1
	Text string `json:"text"`
	// What says what it names, in words: "a new address,
	// collect.example.net", "a call that sends data out (fetch)".
	What string `json:"what"`
}

// PackageChange is one package added, removed or changed in the tree.
type PackageChange struct {
	Path string `json:"path"`
	Name string `json:"name"`
	From string `json:"from,omitempty"` // "" when added
	To   string `json:"to,omitempty"`   // "" when removed
}

// FileChange is one file added, removed or changed.
type FileChange struct {
	File string `json:"file"`
	// Change is "added", "removed" or "changed".
	Change string `json:"change"`
	// Diff is the lines removed ("- ") and added ("+ "), with the line of
	// the new file where each run starts ("@@ line N"); empty for a file
	// that is not text.
	Diff string `json:"diff,omitempty"`
	// hidden are the hidden characters of its added lines, each on its
	// line of the new file.
	hidden []sanitize.Found
}

// maxDiffLines bounds each file's diff; the rest is counted.
const maxDiffLines = 400

// Compare reviews the change from the installed tree from to the
// installed tree to.
func Compare(from, to Pin) (Review, error) {
	r := Review{Package: to.Spec.Package, FromVersion: from.Version(), ToVersion: to.Version(), FromHash: from.Lock.Hash, ToHash: to.Lock.Hash,
		FromOrigin: from.Origin, ToOrigin: to.Origin}
	old := map[string]Package{}
	for _, p := range from.Lock.Packages {
		old[p.Path] = p
	}
	now := map[string]Package{}
	for _, p := range to.Lock.Packages {
		now[p.Path] = p
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for k := range old {
			if !yield(k) {
				return
			}
		}
		for k := range now {
			if _, dup := old[k]; !dup && !yield(k) {
				return
			}
		}
	})
	// What the old tree says anywhere, to tell a new address from one it
	// named before.
	oldText := &strings.Builder{}
	for _, path := range paths {
		o, wasThere := old[path]
		n, isThere := now[path]
		if wasThere && isThere && o.Integrity == n.Integrity {
			continue
		}
		pc := PackageChange{Path: path, Name: n.Name}
		if wasThere {
			pc.From, pc.Name = o.Version, o.Name
		}
		if isThere {
			pc.To, pc.Name = n.Version, n.Name
		}
		r.Packages = append(r.Packages, pc)
		files, err := comparePackage(from.Dir, to.Dir, path, pc.Name, wasThere, isThere, oldText)
		if err != nil {
			return Review{}, err
		}
		for _, f := range files {
			for _, h := range f.hidden {
				if len(r.Hidden) == maxHidden {
					r.HiddenMore++
					continue
				}
				r.Hidden = append(r.Hidden, HiddenChar{File: f.File, Found: h})
			}
		}
		r.Files = append(r.Files, files...)
	}
	for _, f := range r.Files {
		r.Destinations = append(r.Destinations, destinations(f, oldText.String())...)
	}
	if run, ok := ScriptsOf(to.Dir); ok {
		r.Scripts = &run
	} else if pkgs := to.Lock.Scripts(); len(pkgs) > 0 {
		r.Scripts = &ScriptsRun{Packages: pkgs}
	}
	before := from.Lock.Scripts()
	for _, p := range to.Lock.Scripts() {
		if !slices.Contains(before, p) {
			r.NewScripts = append(r.NewScripts, p)
		}
	}
	return r, nil
}

// comparePackage compares one package's files, at path in the trees
// from and to: its own files, not those of the packages nested in its
// node_modules.
func comparePackage(from, to, path, name string, wasThere, isThere bool, oldText *strings.Builder) ([]FileChange, error) {
	var a, b map[string][]byte
	var err error
	if wasThere {
		if a, err = packageFiles(from, path); err != nil {
			return nil, err
		}
	}
	if isThere {
		if b, err = packageFiles(to, path); err != nil {
			return nil, err
		}
	}
	for _, data := range a {
		oldText.Write(data)
	}
	var out []FileChange
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, dup := a[k]; !dup && !yield(k) {
				return
			}
		}
	})
	for _, f := range names {
		x, inA := a[f]
		y, inB := b[f]
		fc := FileChange{File: sanitize.Line(name + "/" + f)}
		switch {
		case inA && inB && bytes.Equal(x, y):
			continue
		case !inA:
			fc.Change = "added"
		case !inB:
			fc.Change = "removed"
		default:
			fc.Change = "changed"
		}
		if isText(x) && isText(y) {
			fc.Diff, fc.hidden = lineDiff(string(x), string(y))
		}
		out = append(out, fc)
	}
	return out, nil
}

// packageFiles reads the plain files of the package at pkg in the tree
// tree, by their path in it, leaving out its nested node_modules and any
// link. It reads beneath the tree: an install script may have left a
// link where a folder of it was (node_modules/@scope to ~/.ssh), and
// a path through one that leads out of the tree is an error.
func packageFiles(tree, pkg string) (map[string][]byte, error) {
	root, err := os.OpenRoot(tree)
	if err != nil {
		return nil, fmt.Errorf("reading the package %s: %w", pkg, err)
	}
	defer root.Close()
	dir := filepath.ToSlash(filepath.Clean(pkg))
	files := map[string][]byte{}
	err = fs.WalkDir(root.FS(), dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" && path != dir {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(root.FS(), path)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(path, dir+"/")] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the package %s: %w", pkg, err)
	}
	return files, nil
}

func isText(b []byte) bool { return len(b) < 1<<20 && !bytes.Contains(b, []byte{0}) }

// lineDiff is the lines removed and added from a to b, and where the
// added lines hold hidden characters: all of them, those past the lines
// shown too.
func lineDiff(a, b string) (string, []sanitize.Found) {
	dmp := diffmatchpatch.New()
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
	var out strings.Builder
	var hidden []sanitize.Found
	line, written, left := 1, 0, 0
	inRun := false
	for _, d := range diffs {
		ls := strings.SplitAfter(d.Text, "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			line += len(ls)
			inRun = false
			continue
		}
		if !inRun {
			fmt.Fprintf(&out, "@@ line %d\n", line)
			inRun = true
		}
		added := d.Type == diffmatchpatch.DiffInsert
		mark := "- "
		if added {
			mark = "+ "
		}
		for _, l := range ls {
			l = strings.TrimRight(l, "\r\n")
			var found []sanitize.Found
			if added {
				found = sanitize.FindAll(l)
				for _, f := range found {
					f.Line = line
					hidden = append(hidden, f)
				}
				line++
			}
			if written >= maxDiffLines {
				left++
				continue
			}
			out.WriteString(mark + shown(l, found) + "\n")
			written++
		}
	}
	if left > 0 {
		fmt.Fprintf(&out, "… and %d more lines\n", left)
	}
	return out.String(), hidden
}

// shown is a line of a package's file as a terminal may print it: with
// no control character, and no character that hides or reorders text;
// an added line names those it had (found, sanitize.FindAll's), a
// removed one says it had some.
func shown(l string, found []sanitize.Found) string {
	c := strings.ReplaceAll(sanitize.String(l), "\n", " ")
	if c == l {
		return c
	}
	if len(found) == 0 {
		return c + "   <- hidden characters or controls taken out here"
	}
	var names []string
	for i, f := range found {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(found)-i))
			break
		}
		names = append(names, f.Words())
	}
	return c + "   <- taken out here: " + strings.Join(names, "; ")
}

// urlPattern finds addresses in code: a URL's host, or a host given to a
// connecting call.
var urlPattern = regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://([a-z0-9.-]+|\[[0-9a-f:]+\])`)

// sendPatterns are the calls through which node code sends data out.
var sendPatterns = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\bfetch\s*\(`), "fetch"},
	{regexp.MustCompile(`\bhttps?\.(?:request|get)\s*\(`), "http.request"},
	{regexp.MustCompile(`\bnet\.(?:connect|createConnection)\s*\(`), "net.connect"},
	{regexp.MustCompile(`\btls\.connect\s*\(`), "tls.connect"},
	{regexp.MustCompile(`\bdgram\.createSocket\s*\(`), "a UDP socket"},
	{regexp.MustCompile(`\bnew\s+WebSocket\s*\(`), "a WebSocket"},
	{regexp.MustCompile(`\bXMLHttpRequest\b`), "XMLHttpRequest"},
	{regexp.MustCompile(`\brequire\s*\(\s*['"](?:node:)?(?:http|https|net|tls|dgram|http2)['"]\s*\)`), "node's network modules"},
	{regexp.MustCompile(`\bfrom\s+['"](?:node:)?(?:http|https|net|tls|dgram|http2)['"]`), "node's network modules"},
	{regexp.MustCompile(`\b(?:axios|got|undici|node-fetch|superagent)\b`), "an HTTP client"},
	{regexp.MustCompile(`\bchild_process\b`), "running other programs"},
}

// destinations are the added lines of f that name a place data can go:
// an address not in old (the whole old tree's text), or a call that
// sends data out.
func destinations(f FileChange, old string) []Destination {
	var out []Destination
	line := 0
	for _, l := range strings.Split(f.Diff, "\n") {
		if n, ok := strings.CutPrefix(l, "@@ line "); ok {
			fmt.Sscanf(n, "%d", &line)
			continue
		}
		text, added := strings.CutPrefix(l, "+ ")
		if !added {
			continue
		}
		var what []string
		for _, m := range urlPattern.FindAllStringSubmatch(text, -1) {
			if host := strings.ToLower(m[1]); !strings.Contains(strings.ToLower(old), host) {
				what = append(what, "a new address, "+host)
			}
		}
		for _, p := range sendPatterns {
			if p.re.MatchString(text) && !slices.Contains(what, "a call that sends data out ("+p.what+")") {
				what = append(what, "a call that sends data out ("+p.what+")")
			}
		}
		if len(what) > 0 {
			t := strings.TrimSpace(text)
			if len(t) > 200 {
				t = t[:200] + "…"
			}
			out = append(out, Destination{File: f.File, Line: line, Text: t, What: strings.Join(what, "; ")})
		}
		line++
	}
	return out
}

// Words says the review as the person reads it: the destinations first.
func (r Review) Words() string {
	if r.Image != nil {
		return r.Image.Words()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: version %s to %s (tree %s to %s)\n", r.Package, r.FromVersion, r.ToVersion, short(r.FromHash), short(r.ToHash))
	if r.OriginLost() {
		b.WriteString("\n" + r.OriginWords() + "\n")
	}
	if len(r.Destinations) > 0 {
		fmt.Fprintf(&b, "\nNew lines that send data somewhere (read these first):\n")
		for _, d := range r.Destinations {
			fmt.Fprintf(&b, "  %s line %d adds %s:\n      %s\n", d.File, d.Line, d.What, d.Text)
		}
	} else {
		b.WriteString("\nNo added line names a new address or a call that sends data out.\n")
	}
	if w := r.HiddenWords(); w != "" {
		b.WriteString("\n" + w)
	}
	if w := r.ScriptsWords(); w != "" {
		b.WriteString("\n" + w + "\n")
	}
	if w := r.OriginWords(); w != "" && !r.OriginLost() {
		b.WriteString("\n" + w + "\n")
	}
	if len(r.Packages) > 0 {
		b.WriteString("\nPackages:\n")
		for _, p := range r.Packages {
			switch {
			case p.From == "":
				fmt.Fprintf(&b, "  added   %s %s\n", p.Name, p.To)
			case p.To == "":
				fmt.Fprintf(&b, "  removed %s %s\n", p.Name, p.From)
			case p.From == p.To:
				fmt.Fprintf(&b, "  changed %s %s (same version, other content)\n", p.Name, p.To)
			default:
				fmt.Fprintf(&b, "  changed %s %s to %s\n", p.Name, p.From, p.To)
			}
		}
	}
	if len(r.Files) > 0 {
		b.WriteString("\nFiles:\n")
		for _, f := range r.Files {
			fmt.Fprintf(&b, "  %s %s\n", f.Change, f.File)
			for _, l := range strings.Split(strings.TrimRight(f.Diff, "\n"), "\n") {
				if l != "" {
					fmt.Fprintf(&b, "      %s\n", l)
				}
			}
		}
	}
	return b.String()
}

// HiddenWords says where added lines hold characters that do not show
// or change how code reads, one line each; "" when none do.
func (r Review) HiddenWords() string {
	if len(r.Hidden) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Added lines hold characters that do not show or change how the code reads (taken out of the lines below):\n")
	for _, h := range r.Hidden {
		fmt.Fprintf(&b, "  %s\n", h.Words())
	}
	if r.HiddenMore > 0 {
		fmt.Fprintf(&b, "  and %d more\n", r.HiddenMore)
	}
	return b.String()
}

// ScriptsWords says which packages' install scripts the new tree runs,
// and which of them are new: "Its install scripts: install scripts ran in
// its sandbox: a@1.0.1, b@2.0.0. New since the version that runs:
// a@1.0.1." "" when it runs none.
func (r Review) ScriptsWords() string {
	if r.Scripts == nil {
		return ""
	}
	w := "Its install scripts: " + sanitize.Line(r.Scripts.Words()) + "."
	if len(r.NewScripts) > 0 {
		w += " New since the version that runs: " + sanitize.Line(strings.Join(r.NewScripts, ", ")) + "."
	}
	return w
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
