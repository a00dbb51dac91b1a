package registrytest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
)

// Bundles serves MCP Bundle files over https, from a real TLS server on a
// loopback port whose certificate only its Client trusts, as a
// publisher's release page would.
type Bundles struct {
	srv *httptest.Server

	mu    sync.Mutex
	files map[string][]byte
	gets  map[string]int
}

// NewBundles starts a bundle server until the test ends.
func NewBundles(t testing.TB) *Bundles {
	t.Helper()
	b := &Bundles{files: map[string][]byte{}, gets: map[string]int{}}
	b.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		data, ok := b.files[r.URL.Path]
		b.gets[r.URL.Path]++
		b.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(data)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// Client trusts the server's certificate.
func (b *Bundles) Client() *http.Client { return b.srv.Client() }

// Serve serves the file at path as /name and returns its https address
// and the SHA-256 of its bytes, as a registry entry lists them.
func (b *Bundles) Serve(t testing.TB, name, path string) (url, sha string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b.Replace("/"+name, data)
	sum := sha256.Sum256(data)
	return b.srv.URL + "/" + name, hex.EncodeToString(sum[:])
}

// Replace serves data as urlPath from now on: a file changed after it
// was published.
func (b *Bundles) Replace(urlPath string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files[urlPath] = data
}

// Gets says how many times urlPath was asked for.
func (b *Bundles) Gets(urlPath string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gets[urlPath]
}

// BundleEntry is a registry entry (a ServerResponse's JSON, for Put)
// whose one package is the MCP Bundle at url with the digest sha.
func BundleEntry(name, version, url, sha string) string {
	v := map[string]any{
		"server": map[string]any{"name": name, "title": "Notes", "description": "Your notes, from an MCP Bundle", "version": version,
			"packages": []any{map[string]any{"registryType": "mcpb", "identifier": url, "version": version, "fileSha256": sha,
				"transport": map[string]any{"type": "stdio"}}}},
		"_meta": map[string]any{"io.modelcontextprotocol.registry/official": map[string]any{"status": "active", "isLatest": true}},
	}
	raw, err := json.Marshal(v)
	if err != nil {
		panic("registrytest: " + err.Error())
	}
	return string(raw)
}
