package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
