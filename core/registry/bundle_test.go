package registry_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// An MCP Bundle package is a way of its own: usable when it is at an
// https address with a fileSha256, installed as a bundle rather than
// planned, and enough for the catalogue to say the server runs here.
func TestBundleChoice(t *testing.T) {
	t.Parallel()
	sum := strings.Repeat("ab", 32)
	d := &registry.ServerDetail{Name: "io.github.example/notes", Packages: []registry.Package{
		{RegistryType: "mcpb", Identifier: "https://example.com/notes.mcpb", FileSHA256: sum, Transport: registry.PackageTransport{Type: "stdio"}}}}
	cs, err := registry.Candidates(d, registry.Want{Prefer: registry.PreferLocal})
	if err != nil || len(cs) != 1 || !cs[0].Bundle || cs[0].Unusable != "" || cs[0].Label != "MCP Bundle https://example.com/notes.mcpb" {
		t.Fatalf("Candidates = %+v, %v", cs, err)
	}
	if _, err := registry.PlanFor(d, cs[0], nil); err == nil || !strings.Contains(err.Error(), "is an MCP Bundle") {
		t.Errorf("a bundle planned as a command: %v", err)
	}
	if s := registry.Summarize(d); !s.Local || s.Unusable != "" {
		t.Errorf("Summarize = %+v", s)
	}
	if p, err := registry.BundlePackage(d); err != nil || p.FileSHA256 != sum {
		t.Errorf("BundlePackage = %+v, %v", p, err)
	}
	for _, tc := range []struct{ id, sum, want string }{
		{"http://example.com/notes.mcpb", sum, "not an https address"},
		{"https://example.com/notes.mcpb", "", "gives no fileSha256"},
		{"https://example.com/notes.mcpb", "abc", "is not a SHA-256"},
	} {
		d.Packages[0].Identifier, d.Packages[0].FileSHA256 = tc.id, tc.sum
		if _, err := registry.BundlePackage(d); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.id, tc.sum, err, tc.want)
		}
		if cs := registry.Choices(d); !strings.Contains(cs[0].Unusable, tc.want) {
			t.Errorf("%s %q: Choices = %+v", tc.id, tc.sum, cs)
		}
	}
}

// FetchBundle downloads over https from a real TLS server (its
// certificate trusted through the client given), checks the file against
// its fileSha256 and refuses it in words when it is another, too large,
// or sent on to a plain http address; a file downloaded before is used
// again without asking.
func TestFetchBundle(t *testing.T) {
	t.Parallel()
	good := []byte("PK\x03\x04 not really a zip, but bytes with a digest")
	sum := sha256.Sum256(good)
	want := hex.EncodeToString(sum[:])
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/good.mcpb", "/changed.mcpb":
			if r.URL.Path == "/changed.mcpb" {
				w.Write(append(good, '!'))
				return
			}
			w.Write(good)
		case "/big.mcpb":
			w.Write(make([]byte, 4096))
		case "/away.mcpb":
			http.Redirect(w, r, "http://"+r.Host+"/good.mcpb", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ctx := context.Background()
	pkg := func(path string) *registry.Package {
		return &registry.Package{RegistryType: "mcpb", Identifier: srv.URL + path, FileSHA256: strings.ToUpper(want)}
	}

	// Without trusting the test server's certificate, nothing is had.
	if _, err := registry.FetchBundle(ctx, http.DefaultClient, pkg("/good.mcpb"), dir, 1<<20); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("an untrusted certificate: %v", err)
	}
	path, err := registry.FetchBundle(ctx, srv.Client(), pkg("/good.mcpb"), dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(good) || filepath.Base(path) != want+".mcpb" {
		t.Errorf("downloaded %s: %q", path, got)
	}
	again, err := registry.FetchBundle(ctx, srv.Client(), pkg("/good.mcpb"), dir, 1<<20)
	mu.Lock()
	n := asked["/good.mcpb"]
	mu.Unlock()
	if err != nil || again != path || n != 1 {
		t.Errorf("the second time: %s, %v, asked %d times", again, err, n)
	}

	other := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{"/changed.mcpb", "is not the file the registry lists"},
		{"/big.mcpb", "more than the 0 MB"},
		{"/away.mcpb", "not an https address"},
		{"/gone.mcpb", "404 Not Found"},
	} {
		max := int64(1 << 20)
		if tc.path == "/big.mcpb" {
			max = 100
		}
		_, err := registry.FetchBundle(ctx, srv.Client(), pkg(tc.path), other, max)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	if left, _ := os.ReadDir(other); len(left) != 0 {
		t.Errorf("refused downloads left files: %v", left)
	}
}

// The downloads folder keeps a download for a day after it was last
// fetched or used again: fetching a new one removes older ones and the
// partial file of a download a crash cut short, and nothing that is not
// a download (another name, a folder, a link, a download under way) nor
// anything outside the folder; using one again
// makes it new; RemoveDownload removes one package's file and nothing
// else.
func TestPruneDownloads(t *testing.T) {
	t.Parallel()
	files := registrytest.NewBundles(t)
	dir := filepath.Join(t.TempDir(), "downloads")
	outside := t.TempDir()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-registry.DownloadKept - time.Hour)
	write := func(d, name string, data []byte, when time.Time) string {
		t.Helper()
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		return p
	}
	digest := func(data []byte) string {
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:])
	}
	pkg := func(url, sha string) *registry.Package {
		return &registry.Package{RegistryType: "mcpb", Identifier: url, FileSHA256: sha}
	}

	// Downloads: one only previewed two days ago, one an hour ago, and
	// one two days ago that is about to be used again.
	previewed := write(dir, digest([]byte("previewed"))+".mcpb", []byte("previewed"), old)
	recent := write(dir, digest([]byte("recent"))+".mcpb", []byte("recent"), time.Now().Add(-time.Hour))
	reusedData := []byte("PK\x03\x04 used again")
	reusedURL, reusedSHA := files.Serve(t, "reused.mcpb", write(outside, "reused.mcpb", reusedData, old))
	reused := write(dir, reusedSHA+".mcpb", reusedData, old)
	// Not downloads, all old.
	var kept []string
	kept = append(kept,
		write(dir, "notes.mcpb", []byte("mine"), old),
		write(dir, digest([]byte("no suffix")), []byte("no suffix"), old),
		write(dir, strings.ToUpper(digest([]byte("upper")))+".mcpb", []byte("upper"), old),
		write(dir, ".download-456", []byte("under way"), time.Now()))
	// A download a crash cut short two days ago.
	partial := write(dir, ".download-123", []byte("cut short"), old)
	folder := filepath.Join(dir, digest([]byte("folder"))+".mcpb")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, write(folder, "inside", []byte("inside"), old))
	if err := os.Chtimes(folder, old, old); err != nil {
		t.Fatal(err)
	}
	target := write(outside, "precious", []byte("precious"), old)
	link := filepath.Join(dir, digest([]byte("precious"))+".mcpb")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, folder, link, target, recent)

	ctx := context.Background()
	// Used again: not downloaded, and new from now on.
	if got, err := registry.FetchBundle(ctx, files.Client(), pkg(reusedURL, reusedSHA), dir, 1<<20); err != nil || got != reused || files.Gets("/reused.mcpb") != 0 {
		t.Fatalf("using a download again: %s, %v, asked %d times", got, err, files.Gets("/reused.mcpb"))
	}
	if st, err := os.Stat(reused); err != nil || time.Since(st.ModTime()) > time.Minute {
		t.Errorf("a download used again is not new: %v, %v", st, err)
	}
	// A new download removes the one only previewed two days ago.
	newData := []byte("PK\x03\x04 a new one")
	newURL, newSHA := files.Serve(t, "new.mcpb", write(outside, "new.mcpb", newData, time.Now()))
	got, err := registry.FetchBundle(ctx, files.Client(), pkg(newURL, newSHA), dir, 1<<20)
	if err != nil || got != filepath.Join(dir, newSHA+".mcpb") {
		t.Fatalf("a new download: %s, %v", got, err)
	}
	if _, err := os.Stat(previewed); !os.IsNotExist(err) {
		t.Errorf("a download only previewed two days ago is still there: %v", err)
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("a download cut short two days ago is still there: %v", err)
	}
	for _, p := range append(kept, reused, got) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
	if n := registry.PruneDownloads(dir, old.Add(-time.Hour)); n != 0 {
		t.Errorf("PruneDownloads removed %d files, none older than the cutoff", n)
	}

	// Installed: its file goes, and only it.
	if err := registry.RemoveDownload(dir, pkg(newURL, strings.ToUpper(newSHA))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(got); !os.IsNotExist(err) {
		t.Errorf("an installed bundle's download is still there: %v", err)
	}
	if err := registry.RemoveDownload(dir, pkg(newURL, newSHA)); err != nil {
		t.Errorf("removing a download that is gone: %v", err)
	}
	if err := registry.RemoveDownload(dir, pkg(newURL, digest([]byte("precious")))); err != nil {
		t.Errorf("RemoveDownload of a link: %v", err)
	}
	if err := registry.RemoveDownload(dir, pkg(newURL, digest([]byte("folder")))); err != nil {
		t.Errorf("RemoveDownload of a folder: %v", err)
	}
	for _, p := range append(kept, reused) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}
