package npmpin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"
)

// The recorded attestation: what registry.npmjs.org answered at
// /-/npm/v1/attestations/gundam-visor@1.0.1 (a package published with
// provenance by GitHub Actions to test provenance checkers), and that
// version's tarball, whose sha512 the lockfile's integrity pins.
const (
	recordedAttestations = "testdata/gundam-visor-1.0.1.attestations.json"
	recordedTarball      = "testdata/gundam-visor-1.0.1.tgz"
)

// pinnedGundam is gundam-visor 1.0.1 as a lockfile pins it.
func pinnedGundam(t *testing.T) Package {
	t.Helper()
	tgz, err := os.ReadFile(recordedTarball)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(tgz)
	return Package{Path: "node_modules/gundam-visor", Name: "gundam-visor", Version: "1.0.1", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
}

func recorded(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(recordedAttestations)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestProvenanceRecorded: the recorded attestation of the pinned tarball
// says where it was built, and says that Sigstore's part is not checked.
func TestProvenanceRecorded(t *testing.T) {
	t.Parallel()
	p, err := CheckProvenance(recorded(t), pinnedGundam(t))
	if err != nil {
		t.Fatal(err)
	}
	want := Provenance{Repository: "https://github.com/ramonpetgrave64/gundam-visor", Ref: "refs/tags/v1.0.1",
		Commit: "599500821344b070902a7a5666064bfdaba715df", Workflow: ".github/workflows/npm-publish.yml",
		Run: "https://github.com/ramonpetgrave64/gundam-visor/actions/runs/9358004112/attempts/1"}
	if p != want {
		t.Errorf("got %+v\nwant %+v", p, want)
	}
	if w := p.Words(); !strings.HasPrefix(w, "built from github.com/ramonpetgrave64/gundam-visor (refs/tags/v1.0.1, commit 599500821344) by its CI — claimed, not verified against Sigstore") {
		t.Errorf("words: %q", w)
	}
	if w := (Provenance{}).Words(); !strings.HasPrefix(w, "published by hand") {
		t.Errorf("no provenance: %q", w)
	}
	if p, err := CheckProvenance(nil, pinnedGundam(t)); err != nil || p.Repository != "" {
		t.Errorf("no attestations: %+v, %v", p, err)
	}
}

// TestProvenanceReplayed: an attacker who publishes other code serves the
// genuine attestation of a clean version with it, or under another
// package's name: it does not hold.
func TestProvenanceReplayed(t *testing.T) {
	t.Parallel()
	other := pinnedGundam(t)
	sum := sha512.Sum512([]byte("other code"))
	other.Integrity = "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if _, err := CheckProvenance(recorded(t), other); err == nil || !strings.Contains(err.Error(), "another tarball") {
		t.Errorf("another tarball: %v", err)
	}
	renamed := pinnedGundam(t)
	renamed.Name, renamed.Version = "postmark-mcp", "1.0.16"
	if _, err := CheckProvenance(recorded(t), renamed); err == nil || !strings.Contains(err.Error(), `not of "pkg:npm/postmark-mcp@1.0.16"`) {
		t.Errorf("another package: %v", err)
	}
}

// TestProvenanceForgedStatement: the statement edited to name another
// repository, its signature kept, does not hold.
func TestProvenanceForgedStatement(t *testing.T) {
	t.Parallel()
	var all map[string]any
	if err := json.Unmarshal(recorded(t), &all); err != nil {
		t.Fatal(err)
	}
	for _, a := range all["attestations"].([]any) {
		env := a.(map[string]any)["bundle"].(map[string]any)["dsseEnvelope"].(map[string]any)
		payload, err := base64.StdEncoding.DecodeString(env["payload"].(string))
		if err != nil {
			t.Fatal(err)
		}
		forged := strings.ReplaceAll(string(payload), "ramonpetgrave64/gundam-visor", "modelcontextprotocol/servers")
		env["payload"] = base64.StdEncoding.EncodeToString([]byte(forged))
	}
	raw, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckProvenance(raw, pinnedGundam(t)); err == nil || !strings.Contains(err.Error(), "signature does not verify") {
		t.Errorf("a forged statement: %v", err)
	}
}

// selfSigned signs a statement of pkg built from repo at commit with a
// certificate the attacker made, whose extensions name certRepo.
func selfSigned(t *testing.T, pkg Package, repo, commit, certRepo string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ext := func(oid asn1.ObjectIdentifier, s string) pkix.Extension {
		v, err := asn1.MarshalWithParams(s, "utf8")
		if err != nil {
			t.Fatal(err)
		}
		return pkix.Extension{Id: oid, Value: v}
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour),
		Subject:         pkix.Name{Organization: []string{"sigstore.dev"}},
		ExtraExtensions: []pkix.Extension{ext(oidSourceRepository, certRepo), ext(oidSourceCommit, commit)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	_, sum, _ := strings.Cut(pkg.Integrity, "-")
	digest, _ := base64.StdEncoding.DecodeString(sum)
	stmt := fmt.Sprintf(`{"_type":%q,"subject":[{"name":%q,"digest":{"sha512":"%x"}}],"predicateType":%q,"predicate":{"buildDefinition":{"buildType":%q,"externalParameters":{"workflow":{"ref":"refs/heads/main","repository":%q,"path":".github/workflows/release.yml"}},"resolvedDependencies":[{"uri":"git+%s","digest":{"gitCommit":%q}}]},"runDetails":{"metadata":{}}}}`,
		inTotoStatement, purl(pkg.Name, pkg.Version), digest, slsaProvenanceV1, githubWorkflowV1, repo, repo, commit)
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d %s", len(inTotoPayload), inTotoPayload, len(stmt), stmt)
	h := sha256.Sum256(pae)
	sig, err := ecdsa.SignASN1(rand.Reader, key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(map[string]any{"attestations": []any{map[string]any{
		"predicateType": slsaProvenanceV1,
		"bundle": map[string]any{
			"verificationMaterial": map[string]any{"certificate": map[string]any{"rawBytes": der}},
			"dsseEnvelope":         map[string]any{"payload": []byte(stmt), "payloadType": inTotoPayload, "signatures": []any{map[string]any{"sig": sig}}},
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProvenanceSelfSigned: a statement signed with a certificate the
// attacker made is what the offline check cannot tell from Sigstore's: it
// is read, and never said to be verified. One whose certificate names
// another repository than its statement does not hold.
func TestProvenanceSelfSigned(t *testing.T) {
	t.Parallel()
	pkg := pinnedGundam(t)
	const repo, commit = "https://github.com/modelcontextprotocol/servers", "0123456789abcdef0123456789abcdef01234567"
	p, err := CheckProvenance(selfSigned(t, pkg, repo, commit, repo), pkg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Verified || !strings.Contains(p.Words(), "not verified against Sigstore") {
		t.Errorf("a self-signed provenance reads as verified: %+v, %q", p, p.Words())
	}
	if _, err := CheckProvenance(selfSigned(t, pkg, repo, commit, "https://github.com/attacker/x"), pkg); err == nil || !strings.Contains(err.Error(), "its certificate") {
		t.Errorf("a certificate of another repository: %v", err)
	}
}
