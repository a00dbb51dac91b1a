package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// InstallBundle's preview says what a bundle asks for and which required
// settings it lacks, and installs nothing; a file that changed after the
// person was shown it is refused, and so is one that is no longer a zip.
func TestInstallBundlePreview(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	file := bundletest.Pack(t, bundletest.Testdata("node"), nil)
	s := h.start(false)
	ctx := context.Background()

	res, err := s.InstallBundle(ctx, BundleRequest{File: file, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Missing, []string{"folder"}) || res.Command != "" || len(res.Settings) != 3 ||
		res.Settings[0] != (BundleSetting{Key: "folder", Title: "Folder", Description: "The folder it reads.", Type: "directory", Required: true}) ||
		!res.Settings[1].Default || !res.Settings[2].Sensitive {
		t.Errorf("preview without settings = %+v", res)
	}
	// What it declares, and its defaults, a form shows while the person
	// fills it in.
	if len(res.Tools) != 3 || res.Tools[0].Name != "echo" || res.Settings[1].DefaultValue != "hello" || res.Settings[2].DefaultValue != "" {
		t.Errorf("preview without settings: tools %+v, settings %+v", res.Tools, res.Settings)
	}
	if err := os.Mkdir(filepath.Join(h.dir, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	res, err = s.InstallBundle(ctx, BundleRequest{File: file, Values: map[string][]string{"folder": {"~/notes"}}, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command != "node" || len(res.Missing) > 0 || res.Bundle.SHA256 == "" {
		t.Errorf("preview = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.paths.BundlesDir(), "bundle-node")); !os.IsNotExist(err) {
		t.Errorf("a preview unpacked the bundle: %v", err)
	}

	// The file changes after the preview.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	other := bundletest.Pack(t, bundletest.Testdata("python"), nil)
	if err := os.Rename(other, file); err != nil {
		t.Fatal(err)
	}
	_, err = s.InstallBundle(ctx, BundleRequest{File: file, SHA256: res.Bundle.SHA256, Values: map[string][]string{"folder": {"~/notes"}}})
	if err == nil || !strings.Contains(err.Error(), "changed since it was shown to you") {
		t.Errorf("installing a file that changed: %v", err)
	}
	if err := os.WriteFile(file, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InstallBundle(ctx, BundleRequest{File: file, Preview: true}); err == nil || !strings.Contains(err.Error(), "zip") {
		t.Errorf("a bundle cut in half: %v", err)
	}
}

// A registry entry whose package is an MCP Bundle: the service downloads
// it over https (from a real TLS server, trusted through Options.HTTP),
// checks it against the entry's fileSha256 and installs it as it installs
// a file, saying where it came from; a file that is not the one the
// registry lists is refused in words and nothing is installed, as is an
// address that is not https.
func TestInstallBundleFromRegistry(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	file := bundletest.Pack(t, bundletest.Testdata("node"), nil)
	files := registrytest.NewBundles(t)
	url, sha := files.Serve(t, "notes-1.0.0.mcpb", file)
	reg := registrytest.New(t)
	reg.Put(registrytest.BundleEntry("io.github.example/bundled-notes", "1.0.0", url, sha), registrytest.Published)
	cl, err := registry.NewClient(reg.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	entry, err := cl.Latest(ctx, "io.github.example/bundled-notes")
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.HTTP = files.Client() })
	if err := os.Mkdir(filepath.Join(h.dir, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}

	req := BundleRequest{Registry: &entry.Server, Values: map[string][]string{"folder": {"~/notes"}}, Preview: true}
	res, err := s.InstallBundle(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Bundle.Source != "registry" || res.Bundle.From != "io.github.example/bundled-notes" || res.Bundle.SHA256 != sha || res.Command != "node" || res.Name != "bundle-node" {
		t.Errorf("preview = %+v", res)
	}
	if len(res.Needs) > 0 {
		t.Errorf("the registry lists the version the bundle says, yet the preview notes %q", res.Needs)
	}
	download := filepath.Join(h.paths.DownloadsDir(), sha+".mcpb")
	if _, err := os.Stat(download); err != nil {
		t.Errorf("the preview's download is not kept for the install: %v", err)
	}
	req.Preview, req.SHA256 = false, res.Bundle.SHA256
	if res, err = s.InstallBundle(ctx, req); err != nil {
		t.Fatal(err)
	}
	if res.Server == nil || res.Server.Bundle == nil || res.Server.Bundle.Source != "registry" {
		t.Errorf("installed = %+v", res)
	}
	if n := files.Gets("/notes-1.0.0.mcpb"); n != 1 {
		t.Errorf("the bundle was downloaded %d times for a preview and an install; want once", n)
	}
	// Installed: unpacked into its folder, and its download gone.
	if _, err := os.Stat(filepath.Join(h.paths.BundlesDir(), "bundle-node", "server", "index.js")); err != nil {
		t.Errorf("the installed bundle is not unpacked: %v", err)
	}
	if _, err := os.Stat(download); !os.IsNotExist(err) {
		t.Errorf("an installed bundle's download is still there: %v", err)
	}

	// The publisher's file changes after the registry listed it.
	files.Replace("/notes-1.0.0.mcpb", []byte("PK\x03\x04 something else"))
	other := entry.Server
	other.Name = "io.github.example/changed-notes"
	other.Packages = []registry.Package{entry.Server.Packages[0]}
	other.Packages[0].FileSHA256 = strings.Repeat("0", 64)
	_, err = s.InstallBundle(ctx, BundleRequest{Registry: &other, Name: "changed", Values: map[string][]string{"folder": {"~/notes"}}, Preview: true})
	if err == nil || !strings.Contains(err.Error(), "is not the file the registry lists") || !strings.Contains(err.Error(), "Nothing was installed") {
		t.Errorf("a file that is not the listed one: %v", err)
	}
	other.Packages[0].Identifier = strings.Replace(url, "https://", "http://", 1)
	if _, err := s.InstallBundle(ctx, BundleRequest{Registry: &other, Preview: true}); err == nil || !strings.Contains(err.Error(), "not an https address") {
		t.Errorf("a bundle over plain http: %v", err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.Find("changed"); ok {
		t.Error("a refused bundle was installed")
	}
}

// A registry entry that lists another version than the bundle's manifest
// says: the preview and the install say so among the bundle's notes, and
// install it all the same (its SHA-256 is what pins it); an entry that
// lists no version, or the same one, says nothing.
func TestInstallBundleFromRegistryVersion(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	file := bundletest.Pack(t, bundletest.Testdata("node"), func(m map[string]any) { m["version"] = "1.1.0" })
	files := registrytest.NewBundles(t)
	url, sha := files.Serve(t, "notes.mcpb", file)
	reg := registrytest.New(t)
	reg.Put(registrytest.BundleEntry("io.github.example/listed-notes", "1.2.0", url, sha), registrytest.Published)
	reg.Put(registrytest.BundleEntry("io.github.example/unlisted-notes", "", url, sha), registrytest.Published)
	reg.Put(registrytest.BundleEntry("io.github.example/same-notes", "v1.1.0", url, sha), registrytest.Published)
	reg.Put(withoutPackageVersion(t, registrytest.BundleEntry("io.github.example/entry-notes", "1.2.0", url, sha)), registrytest.Published)
	cl, err := registry.NewClient(reg.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := h.start(false, func(o *Options) { o.HTTP = files.Client() })
	if err := os.Mkdir(filepath.Join(h.dir, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	const note = "it says it is version 1.1.0; the registry lists version 1.2.0"

	// An entry whose package lists no version is compared by its own.
	entry, err := cl.Latest(ctx, "io.github.example/entry-notes")
	if err != nil {
		t.Fatal(err)
	}
	if v := entry.Server.Packages[0].Version; v != "" || entry.Server.Version != "1.2.0" {
		t.Fatalf("the entry lists version %q, its package %q", entry.Server.Version, v)
	}
	if res, err := s.InstallBundle(ctx, BundleRequest{Registry: &entry.Server, Name: "other", Preview: true}); err != nil || len(res.Needs) != 1 || !strings.HasPrefix(res.Needs[0], note) {
		t.Errorf("an entry whose package lists no version: %v, notes %q; want %q", err, res.Needs, note)
	}

	entry, err = cl.Latest(ctx, "io.github.example/listed-notes")
	if err != nil {
		t.Fatal(err)
	}
	if v := entry.Server.Packages[0].Version; v != "1.2.0" {
		t.Fatalf("the entry's package lists version %q", v)
	}
	// Without its settings, and with them.
	res, err := s.InstallBundle(ctx, BundleRequest{Registry: &entry.Server, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Missing) == 0 || len(res.Needs) != 1 || !strings.HasPrefix(res.Needs[0], note) {
		t.Errorf("preview without settings: missing %q, notes %q; want %q", res.Missing, res.Needs, note)
	}
	req := BundleRequest{Registry: &entry.Server, Values: map[string][]string{"folder": {"~/notes"}}, Preview: true}
	if res, err = s.InstallBundle(ctx, req); err != nil {
		t.Fatal(err)
	}
	if res.Bundle.Version != "1.1.0" || len(res.Needs) != 1 || !strings.HasPrefix(res.Needs[0], note) {
		t.Errorf("preview: version %q, notes %q; want %q", res.Bundle.Version, res.Needs, note)
	}
	req.Preview, req.SHA256 = false, res.Bundle.SHA256
	if res, err = s.InstallBundle(ctx, req); err != nil {
		t.Fatal(err)
	}
	if res.Server == nil || len(res.Needs) != 1 || !strings.HasPrefix(res.Needs[0], note) {
		t.Errorf("installed: %+v, notes %q; want %q", res.Server, res.Needs, note)
	}

	for _, name := range []string{"io.github.example/unlisted-notes", "io.github.example/same-notes"} {
		entry, err := cl.Latest(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.InstallBundle(ctx, BundleRequest{Registry: &entry.Server, Name: "other", Values: map[string][]string{"folder": {"~/notes"}}, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Needs) > 0 {
			t.Errorf("%s, listing version %q: notes %q", name, entry.Server.Packages[0].Version, res.Needs)
		}
	}
	if got := versionNote("2.0.0", ""); got != "it says no version of its own; the registry lists version 2.0.0 (the file is the one the registry lists: its SHA-256 matches)" {
		t.Errorf("versionNote of a bundle without a version = %q", got)
	}
	if got := versionNote(strings.Repeat("9", 100)+"\n", "1.0.0"); !strings.HasSuffix(got, strings.Repeat("9", 64)+"… (the file is the one the registry lists: its SHA-256 matches)") {
		t.Errorf("versionNote of a long version = %q", got)
	}
}

// Downloads only previewed go a day later, when another is downloaded;
// what is not a download in the downloads folder, and anything outside
// it, stays.
func TestRegistryDownloadsPruned(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	files := registrytest.NewBundles(t)
	oldURL, oldSHA := files.Serve(t, "old.mcpb", bundletest.Pack(t, bundletest.Testdata("node"), nil))
	newURL, newSHA := files.Serve(t, "new.mcpb", bundletest.Pack(t, bundletest.Testdata("node"), func(m map[string]any) { m["version"] = "1.1.0" }))
	reg := registrytest.New(t)
	reg.Put(registrytest.BundleEntry("io.github.example/old-notes", "1.0.0", oldURL, oldSHA), registrytest.Published)
	reg.Put(registrytest.BundleEntry("io.github.example/new-notes", "1.1.0", newURL, newSHA), registrytest.Published)
	cl, err := registry.NewClient(reg.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := h.start(false, func(o *Options) { o.HTTP = files.Client() })
	preview := func(name string) {
		t.Helper()
		entry, err := cl.Latest(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.InstallBundle(ctx, BundleRequest{Registry: &entry.Server, Preview: true}); err != nil {
			t.Fatal(err)
		}
	}
	preview("io.github.example/old-notes")
	downloads := h.paths.DownloadsDir()
	previewed := filepath.Join(downloads, oldSHA+".mcpb")
	// Beside it, old too: a file and a folder that are not downloads, and
	// a download's name outside the downloads folder.
	mine := filepath.Join(downloads, "notes.txt")
	folder := filepath.Join(downloads, strings.Repeat("a", 64)+".mcpb")
	outside := filepath.Join(filepath.Dir(downloads), strings.Repeat("b", 64)+".mcpb")
	if err := os.WriteFile(mine, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	twoDaysAgo := time.Now().Add(-48 * time.Hour)
	for _, p := range []string{previewed, mine, folder, outside} {
		if err := os.Chtimes(p, twoDaysAgo, twoDaysAgo); err != nil {
			t.Fatal(err)
		}
	}

	preview("io.github.example/new-notes")
	if _, err := os.Stat(previewed); !os.IsNotExist(err) {
		t.Errorf("a download only previewed two days ago is still there: %v", err)
	}
	for _, p := range []string{filepath.Join(downloads, newSHA+".mcpb"), mine, folder, outside} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

// withoutPackageVersion is a registry entry (JSON) whose packages list no
// version of their own, as a bundle's package may not.
func withoutPackageVersion(t *testing.T, entry string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(entry), &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range v["server"].(map[string]any)["packages"].([]any) {
		delete(p.(map[string]any), "version")
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
