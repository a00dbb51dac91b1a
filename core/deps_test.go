package core

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// forbidden reports whether core may not depend on pkg: core is everything
// that is not a pixel, so no GUI toolkit, tray library or the D-Bus library
// that trays use may reach it, however indirectly.
func forbidden(pkg string) bool {
	return strings.HasPrefix(pkg, "fyne.io") ||
		strings.HasPrefix(pkg, "github.com/getlantern") ||
		strings.HasPrefix(pkg, "github.com/godbus") ||
		strings.Contains(pkg, "systray")
}

func TestCoreImportsNoFrontEnd(t *testing.T) {
	t.Parallel()
	// Each line: a package core depends on, then the packages it imports, so
	// a failure can say who pulled the forbidden one in.
	importers := map[string][]string{}
	var bad []string
	for _, fields := range goList(t, "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./core/...") {
		pkg := fields[0]
		if forbidden(pkg) {
			bad = append(bad, pkg)
		}
		for _, imp := range fields[1:] {
			importers[imp] = append(importers[imp], pkg)
		}
	}
	sort.Strings(bad)
	for _, pkg := range bad {
		t.Errorf("core depends on %s (imported by %s)", pkg, strings.Join(importers[pkg], ", "))
	}
	if len(bad) > 0 {
		t.Log("core must not import a front end; define an interface in core and implement it in app/window, app/cli, app/host, tray/ or keychain/")
	}
}

// goList runs go list in the module's root with args (its -f prints a
// package's path, then what it imports) and returns each package's line
// as its fields; the test skips where there is no go command.
func goList(t *testing.T, args ...string) [][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var lines [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines = append(lines, fields)
		}
	}
	return lines
}

// moduleRoot walks up from the test's working directory (the package's own
// directory under go test) to the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// engine are the packages that only the service drives: a front end (the
// window, the tray, the command line, main) that imported one would
// describe servers in words of its own, or reach a server around the
// service.
var engine = []string{
	"github.com/mcptray/mcptray/core/conn",
	"github.com/mcptray/mcptray/core/transport",
	"github.com/mcptray/mcptray/core/builtin",
	"github.com/mcptray/mcptray/core/filelock",
}

func TestFrontEndsSpeakTheServicesWords(t *testing.T) {
	t.Parallel()
	n := 0
	for _, fields := range goList(t, "-f",
		`{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`,
		".", "./app/...", "./tray/...") {
		n++
		for _, imp := range fields[1:] {
			if slices.Contains(engine, imp) {
				t.Errorf("%s imports %s; use core/service's types and actions instead", fields[0], imp)
			}
		}
	}
	if n < 5 {
		t.Fatalf("go list found %d front-end packages; the test no longer looks where they are", n)
	}
}

// abovePins reports the packages the holding policy (core/pins) must not
// reach, however indirectly: the service, which tells it what servers list
// and asks it what to offer, the parts that stand for the service (the
// gateway, the control endpoint), and every front end. The policy decides
// from what it is told, so what is held never depends on who shows it or
// who asks.
func abovePins(pkg string) bool {
	const mod = "github.com/mcptray/mcptray"
	if forbidden(pkg) || pkg == mod {
		return true
	}
	for _, p := range []string{"/core/service", "/core/gateway", "/core/control", "/app", "/tray", "/keychain"} {
		if pkg == mod+p || strings.HasPrefix(pkg, mod+p+"/") {
			return true
		}
	}
	return false
}

func TestPinsImportNoServiceNorFrontEnd(t *testing.T) {
	t.Parallel()
	importers := map[string][]string{}
	var bad []string
	seen := 0
	for _, fields := range goList(t, "-deps", "-test", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./core/pins") {
		seen++
		pkg := fields[0]
		if abovePins(pkg) {
			bad = append(bad, pkg)
		}
		for _, imp := range fields[1:] {
			// A test's own build of a package is "pkg [pkg.test]".
			if !strings.HasPrefix(imp, "[") {
				importers[imp] = append(importers[imp], pkg)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list found %d packages under core/pins; the test no longer looks where it should", seen)
	}
	sort.Strings(bad)
	for _, pkg := range slices.Compact(bad) {
		t.Errorf("core/pins depends on %s (imported by %s)", pkg, strings.Join(importers[pkg], ", "))
	}
	if len(bad) > 0 {
		t.Log("the holding policy is told what servers list and asked what to offer; it must not call back up: pass what it needs in")
	}
}

// frontEndMay are the core packages each front end may import, and none
// other: the service's API and words (core/service), the control socket
// that carries them, and what is plain data or words of its own (the
// record, the pins' words, the registry's catalogue, the sandbox's
// words, sanitize). Config files and sign-ins are the service's business
// (core/config, core/oauth), and so is the engine (core/conn, …): a front
// end that imported one would read or write around the service.
var frontEndMay = map[string][]string{
	"app/window": {"activity", "control", "demo", "gateway", "logfile", "pins", "registry", "sanitize", "service", "tools"},
	"app/cli":    {"activity", "control", "demo", "gateway", "instance", "logfile", "pins", "registry", "sandbox", "sanitize", "secret", "service", "tools"},
	"app/host":   {"activity", "control", "instance", "secret", "service"},
	"tray":       {"control", "sanitize", "service"},
}

func TestFrontEndsImportOnlyTheService(t *testing.T) {
	t.Parallel()
	const mod = "github.com/mcptray/mcptray/"
	args := []string{"-f", `{{.ImportPath}} {{join .Imports " "}}`}
	for fe := range frontEndMay {
		args = append(args, "./"+fe)
	}
	seen := 0
	for _, fields := range goList(t, args...) {
		fe := strings.TrimPrefix(fields[0], mod)
		may, ok := frontEndMay[fe]
		if !ok {
			t.Fatalf("go list answered for %s, which is not a front end listed here", fields[0])
		}
		seen++
		for _, imp := range fields[1:] {
			pkg, ok := strings.CutPrefix(imp, mod+"core/")
			if !ok {
				continue
			}
			if !slices.Contains(may, pkg) {
				t.Errorf("%s imports core/%s; front ends speak core/service's API and words (core/service/api.go, vocabulary.go)", fe, pkg)
			}
		}
	}
	if seen != len(frontEndMay) {
		t.Fatalf("go list found %d of the %d front ends; the test no longer looks where they are", seen, len(frontEndMay))
	}
}

// partMay are the module's packages each part of the service may import,
// and none other: a part decides one concern from what it is told (the
// config in use, what the service gives it as it is made), so it never
// reaches the service, the engine that runs servers (core/conn), nor
// what stands for the service (the gateway, the control endpoint).
var partMay = map[string][]string{
	"core/service/apps":        {"core/config", "core/sanitize", "core/statefile"},
	"core/service/datafolders": {"core/config", "core/sandbox", "core/sanitize", "core/statefile"},
	"core/service/secretkeep":  {"core/config", "core/filelock", "core/sanitize", "core/secret"},
	"core/service/signin":      {"core/config", "core/oauth", "core/secret", "core/transport"},
	"core/service/trust":       {"core/activity", "core/config", "core/pins", "core/tools"},
	"core/service/netpolicy":   {"core/activity", "core/config", "core/egress", "core/guard", "core/sandbox", "core/sanitize"},
}

func TestServicePartsImportOnlyTheirOwn(t *testing.T) {
	t.Parallel()
	const mod = "github.com/mcptray/mcptray/"
	args := []string{"-f", `{{.ImportPath}} {{join .Imports " "}}`}
	for part := range partMay {
		args = append(args, "./"+part)
	}
	seen := 0
	for _, fields := range goList(t, args...) {
		part := strings.TrimPrefix(fields[0], mod)
		may, ok := partMay[part]
		if !ok {
			t.Fatalf("go list answered for %s, which is not a part listed here", fields[0])
		}
		seen++
		for _, imp := range fields[1:] {
			pkg, ok := strings.CutPrefix(imp, mod)
			if !ok {
				continue
			}
			if !slices.Contains(may, pkg) {
				t.Errorf("%s imports %s; a part of the service is told what it needs (the config in use, a reload, notices, the record) and imports only the packages listed in partMay", part, pkg)
			}
		}
	}
	if seen != len(partMay) {
		t.Fatalf("go list found %d of the %d parts; the test no longer looks where they are", seen, len(partMay))
	}
}

// storeOf are, for each package that keeps data on disk, what opens or
// reads that data there: the activity record's file (core/activity), and
// the MCP Registry's catalogue and its copy in the cache folder
// (core/registry). The rest of those packages is words and plain data
// (a row, a filter, a plan), which a front end may use.
var storeOf = map[string][]string{
	"github.com/mcptray/mcptray/core/activity": {"Open", "Options", "Log", "Keys", "ErrNoRecord"},
	"github.com/mcptray/mcptray/core/registry": {"Open", "OpenOptions", "Cache", "CachePath", "Result", "Client", "NewClient",
		"BaseURL", "ListOptions", "Page", "FetchBundle", "PruneDownloads", "RemoveDownload", "UnreachableError", "NotFoundError"},
}

// TestWindowReadsDataOnlyThroughTheAPI: the window reaches the activity
// record and the registry's catalogue through the running mcptray's API,
// as it reaches the servers, never by opening the record's file or the
// catalogue's copy itself (a second road to the data, which would read
// what the running mcptray keeps with other rules, or a record another
// program put in its place).
func TestWindowReadsDataOnlyThroughTheAPI(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(moduleRoot(t), "app", "window")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		seen++
		// The name each store package goes by in this file.
		names := map[string]string{}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "database/sql" || strings.Contains(path, "sqlite") {
				t.Errorf("%s imports %s: the window reads no database itself", fset.Position(imp.Pos()), path)
			}
			if _, ok := storeOf[path]; !ok {
				continue
			}
			name := filepath.Base(path)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			if name == "_" || name == "." {
				t.Errorf("%s imports %s as %s; import it by name", fset.Position(imp.Pos()), path, name)
			}
			names[name] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if path, ok := names[x.Name]; ok && slices.Contains(storeOf[path], sel.Sel.Name) {
				t.Errorf("%s: the window uses %s.%s; read the data through the running mcptray's API (core/service/api.go)",
					fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
	}
	if seen < 10 {
		t.Fatalf("found %d of the window's files in %s; the test no longer looks where they are", seen, dir)
	}
}
