package window

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/registry/registrytest"
	"github.com/mcptray/mcptray/core/secret"
	"github.com/mcptray/mcptray/core/service"
)

// packNotes packs testdata/notes-bundle's manifest, with core/bundle's
// test server as its server, with mcpb, signed with a certificate of its
// own making when selfSigned.
func packNotes(t *testing.T, selfSigned bool) string {
	t.Helper()
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(filepath.Join("testdata", "notes-bundle"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(src, "server"), os.DirFS(filepath.Join(bundletest.Testdata("node"), "server"))); err != nil {
		t.Fatal(err)
	}
	out := bundletest.Pack(t, src, nil)
	if selfSigned {
		bundletest.SignSelf(t, out)
	}
	return out
}

// keptValues is the service's keychain, with every value it is given
// remembered: what a bundle's secret reached the keychain as.
type keptValues struct {
	secret.Store
	mu     sync.Mutex
	values []string
}

var _ secret.Store = (*keptValues)(nil)

func (k *keptValues) Set(ctx context.Context, key secret.Key, value []byte) error {
	k.mu.Lock()
	k.values = append(k.values, string(value))
	k.mu.Unlock()
	return k.Store.Set(ctx, key, value)
}

func (k *keptValues) has(v string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Contains(k.values, v)
}

// field is the dialog's field for the setting key.
func (b *bundleDialog) field(t *testing.T, key string) *bundleField {
	t.Helper()
	i := slices.IndexFunc(b.fields, func(fl *bundleField) bool { return fl.st.Key == key })
	if i < 0 {
		t.Fatalf("the dialog has no field %s", key)
	}
	return b.fields[i]
}

// texts are the words of the labels in the dialog's body, one a line.
func (b *bundleDialog) texts() string {
	return strings.Join(labels(b.body), "\n")
}

// TestRealBundleDialog: "Add… › Install from a file…" opens a file
// chooser; a bundle packed and signed by the official CLI is shown in one
// dialog, before anything of it runs: what it is and who signed it, a
// form for its settings, the exact command once the needed ones are
// filled in, the folders it gets and how, and its tools and prompts with
// the one that gives the AI orders marked. Installed, its secret is in
// the keychain and not in the file, its folder is its sandbox's to change
// as the box said, and the server is shown.
func TestRealBundleDialog(t *testing.T) {
	file := packNotes(t, true)
	kept := &keptValues{}
	r := newReal(t, nil, func(_ *real, o *service.Options) { kept.Store = o.Store; o.Store = kept })
	r.v.previewDelay = time.Millisecond
	r.until("the first snapshot", func() bool { return r.v.loaded })

	r.v.do(func() {
		r.v.showAddMenu()
		for _, it := range r.v.addMenu.Items {
			if it.Label == "Install from a file…" {
				it.Action()
			}
		}
		if r.v.bundleChooser == nil {
			t.Fatal("Install from a file… opened no file chooser")
		}
		r.v.bundleChooser.Hide()
		r.v.openBundle(service.BundleRequest{File: file})
	})
	r.until("the bundle dialog", func() bool { return r.v.bundle != nil })
	b := r.v.bundle
	r.v.do(func() {
		text := b.texts()
		for _, want := range []string{
			"Notes", "version 2.1.0 · by Ada Example",
			"Reads and writes the notes in a folder you choose",
			"Signed by MCPB Self-Signed Certificate (self-signed): the signer vouches for themself",
			"Fill in Notes folder, API key to see the exact command it will run.",
			"The folder you choose for Notes folder, to read",
			"list_notes", "Lists the notes in your folder.",
			"add_note", "summarise",
			"reads as orders to the AI",
			"It needs Notes folder, API key before it can be installed.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the dialog does not say %q; it says:\n%s", want, text)
			}
		}
		if b.runs.Visible() || !b.install.Disabled() {
			t.Errorf("with its folder and key missing: command shown %v, Install enabled %v", b.runs.Visible(), !b.install.Disabled())
		}
		if b.name.Text != "notes" || b.field(t, "max_results").entry.PlaceHolder != "10" || b.field(t, "verbose").check.Checked {
			t.Errorf("name %q, max_results placeholder %q, verbose %v", b.name.Text, b.field(t, "max_results").entry.PlaceHolder, b.field(t, "verbose").check.Checked)
		}
	})

	notes := filepath.Join(r.dir, "my notes")
	if err := os.Mkdir(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	r.v.do(func() {
		test.Type(b.field(t, "max_results").entry, "many")
	})
	r.until("a number that is no number marked", func() bool { return b.field(t, "max_results").err.Visible() })
	r.v.do(func() {
		if msg := b.field(t, "max_results").err.Text; !strings.Contains(msg, "is not a number") || !b.install.Disabled() {
			t.Errorf("a word for a number: %q, Install enabled %v", msg, !b.install.Disabled())
		}
		b.field(t, "max_results").entry.SetText("25")
		b.field(t, "folder").entry.SetText(notes)
		test.Tap(b.field(t, "folder").write)
		test.Tap(b.field(t, "verbose").check)
		test.Type(b.field(t, "api_key").entry, "sk-live-123")
	})
	r.until("the exact command", func() bool { return b.current && !b.install.Disabled() })
	r.v.do(func() {
		text := b.texts()
		unpacked := filepath.Join(r.paths.BundlesDir(), "notes")
		wantRun := `node ` + filepath.Join(unpacked, "server", "index.js") + ` "` + notes + `" --max-results 25 --verbose=true`
		if b.runs.Text != wantRun {
			t.Errorf("runs %q, want %q", b.runs.Text, wantRun)
		}
		for _, want := range []string{"In " + unpacked + " (its own files", "NOTES_API_KEY", "given API_KEY from your keychain", notes, "read and change"} {
			if !strings.Contains(text, want) {
				t.Errorf("the dialog does not say %q; it says:\n%s", want, text)
			}
		}
		if strings.Contains(text, "sk-live-123") {
			t.Error("the dialog shows the secret")
		}
	})
	r.tap(b.install)
	r.until("notes in the list, selected", func() bool { _, ok := r.v.snap.Find("notes"); return ok && r.v.sel == "notes" })

	raw, err := os.ReadFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-live-123") {
		t.Errorf("the secret is in mcptray's config: %s", raw)
	}
	u, err := config.ReadUserFile(r.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(u.MCPServers["notes"]), `"bundle"`) {
		t.Errorf("the entry does not say which bundle it is: %s", u.MCPServers["notes"])
	}
	sb, err := r.cl.SandboxOf(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(sb.Grants, func(g service.Grant) bool { return g.Kind == "write" && strings.HasSuffix(g.What, "my notes") }) {
		t.Errorf("the sandbox does not let it change %s: %+v", notes, sb.Grants)
	}
	secrets, err := r.cl.Secrets(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	if len(secrets) != 1 || secrets[0].Name != "API_KEY" || !secrets[0].Set || !kept.has("sk-live-123") || kept.has(secretGiven) {
		t.Errorf("secrets = %+v; the keychain was given the typed key %v, the preview's stand-in %v", secrets, kept.has("sk-live-123"), kept.has(secretGiven))
	}
	r.v.do(func() {
		if b.field(t, "api_key").entry.Text != "" {
			t.Error("the closed dialog still holds the secret")
		}
	})
}

// A file that is no bundle is refused in words, and no dialog asks
// anything of it.
func TestRealBundleRefused(t *testing.T) {
	r := newReal(t, nil)
	r.until("the first snapshot", func() bool { return r.v.loaded })
	bad := filepath.Join(t.TempDir(), "weather.mcpb")
	if err := os.WriteFile(bad, []byte("not a zip at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.v.do(func() { r.v.openBundle(service.BundleRequest{File: bad}) })
	r.until("the refusal", func() bool { return len(r.v.errs) > 0 })
	r.v.do(func() {
		if r.v.bundle != nil || !strings.Contains(r.v.errs[0], "zip") {
			t.Errorf("dialog %v, errors %q", r.v.bundle != nil, r.v.errs)
		}
	})
}

func TestSignatureLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Not signed", "Not signed: nothing says who made this file."},
		{"", "Not signed: nothing says who made this file."},
		{"Signed by Ada (self-signed)", "Signed by Ada (self-signed): the signer vouches for themself; no one else checked who they are."},
		{"Signed by Example, Inc.", "Signed by Example, Inc."},
	} {
		if got := signatureLine(c.in); got != c.want {
			t.Errorf("signatureLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRealBundleFocus: the running mcptray asks the window, over its
// control socket, to open a bundle (a file manager opened it with
// mcptray): the window comes forward at its install dialog.
func TestRealBundleFocus(t *testing.T) {
	file := packNotes(t, false)
	r := newReal(t, nil)
	r.until("the first snapshot", func() bool { return r.v.loaded })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	requests, err := r.cl.FocusRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	followed := make(chan struct{})
	go func() { r.v.followFocus(ctx, requests); close(followed) }()
	defer func() { cancel(); <-followed }()
	// Asked once the endpoint has the window's stream.
	for !r.inst.Endpoint.FocusOn(control.WindowRequest{Bundle: file}) {
		if err := r.cl.OpenWindow(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	r.until("the bundle dialog", func() bool { return r.v.bundle != nil })
	r.v.do(func() {
		if text := r.v.bundle.texts(); !strings.Contains(text, "Not signed: nothing says who made this file.") {
			t.Errorf("the dialog says:\n%s", text)
		}
	})
}

// TestRealBundleFromCatalogue: a registry entry whose package is an MCP
// Bundle is installed from the catalogue through the same dialog: the
// running mcptray downloads it over https (a real TLS server, trusted
// through the service's client), checks it against the entry's
// fileSha256, and the dialog says so; installed, the catalogue closes
// and the server says it came from the registry.
func TestRealBundleFromCatalogue(t *testing.T) {
	files := registrytest.NewBundles(t)
	url, sha := files.Serve(t, "notes-2.1.0.mcpb", packNotes(t, false))
	reg := registrytest.New(t)
	reg.Put(registrytest.BundleEntry("io.github.example/bundled-notes", "2.1.0", url, sha), registrytest.Published)
	// It lists another version than its bundle (2.1.0) says.
	two := registrytest.BundleEntry("io.github.example/two-ways", "3.0.0", url, sha)
	two = strings.Replace(two, `"packages":[`, `"packages":[{"registryType":"npm","identifier":"notes-mcp","version":"2.1.0","transport":{"type":"stdio"}},`, 1)
	reg.Put(two, registrytest.Published)
	r := newReal(t, nil, func(_ *real, o *service.Options) { o.HTTP = files.Client() }, withRegistry(reg.URL))
	r.v.previewDelay = time.Millisecond
	withRuntimes(r.v)
	r.until("the first snapshot", func() bool { return r.v.loaded })
	r.v.do(r.v.showCatalogue)
	c := r.v.catalogue
	r.until("the catalogue", func() bool { return slices.Contains(entryNames(c), "io.github.example/bundled-notes") })
	r.v.do(func() {
		pick(t, c, "io.github.example/bundled-notes")
		details := strings.Join(labels(c.detail), "\n")
		if !strings.Contains(details, "mcptray downloads its MCP Bundle from "+url) || c.install.Disabled() {
			t.Errorf("Install… disabled %v, details:\n%s", c.install.Disabled(), details)
		}
		test.Tap(c.install)
	})
	r.until("the bundle dialog", func() bool { return r.v.bundle != nil })
	b := r.v.bundle
	notes := filepath.Join(r.dir, "notes")
	if err := os.Mkdir(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	r.v.do(func() {
		if text := b.texts(); !strings.Contains(text, "from the MCP Registry (io.github.example/bundled-notes), checked against the SHA-256 it lists") ||
			strings.Contains(text, "the registry lists version") {
			t.Errorf("the dialog says:\n%s", text)
		}
		b.field(t, "folder").entry.SetText(notes)
		test.Type(b.field(t, "api_key").entry, "sk-1")
	})
	r.until("the exact command", func() bool { return b.current && !b.install.Disabled() })
	r.tap(b.install)
	r.until("notes installed and the catalogue closed", func() bool {
		sv, ok := r.v.snap.Find("notes")
		return ok && sv.Bundle != nil && sv.Bundle.Source == "registry" && c.ctx.Err() != nil // closed
	})
	if n := files.Gets("/notes-2.1.0.mcpb"); n != 1 {
		t.Errorf("downloaded %d times; want once", n)
	}

	// An entry that also runs with npx: its install form offers the
	// bundle as one way, and choosing it opens the bundle's dialog.
	r.v.do(r.v.showCatalogue)
	c = r.v.catalogue
	r.until("the second catalogue", func() bool { return slices.Contains(entryNames(c), "io.github.example/two-ways") })
	r.v.do(func() {
		r.v.bundle = nil
		pick(t, c, "io.github.example/two-ways")
		test.Tap(c.install)
		f := c.form
		if f == nil || f.ways == nil {
			t.Fatal("no install form with a choice of ways")
		}
		f.ways.SetSelected("On this computer, from its MCP Bundle (mcpb package " + url + ")")
		if text := strings.Join(labels(f.form), "\n"); !strings.Contains(text, "mcptray downloads its MCP Bundle") {
			t.Errorf("the form, the bundle chosen:\n%s", text)
		}
		test.Tap(f.install)
	})
	r.until("the bundle dialog from the form", func() bool { return r.v.bundle != nil })
	r.v.do(func() {
		if r.v.bundle.req.Registry == nil || r.v.bundle.req.Registry.Name != "io.github.example/two-ways" || len(r.v.bundle.req.Registry.Packages) != 1 {
			t.Errorf("the dialog's bundle: %+v", r.v.bundle.req)
		}
		// Among the bundle's notes: the versions that differ.
		const note = "It says it is version 2.1.0; the registry lists version 3.0.0 (the file is the one the registry lists: its SHA-256 matches)."
		if text := r.v.bundle.texts(); !strings.Contains(text, note) {
			t.Errorf("the dialog says:\n%s\nwant %q", text, note)
		}
	})
}
