package npmpin

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Provenance: npm's registry keeps, for a version published from a CI
// with provenance on, a signed SLSA provenance statement (the answer of
// /-/npm/v1/attestations/NAME@VERSION, which dist.attestations.url
// names). It says which repository, commit and workflow built the
// tarball, and it is signed by a short-lived Sigstore certificate issued
// to that workflow. A version without one was published by hand (or by a
// CI without provenance): nothing but the publisher's word says where it
// came from.
//
// What CheckProvenance verifies, offline, from the attestation alone:
//   - the statement is an in-toto statement of SLSA provenance v1, in a
//     DSSE envelope of in-toto's payload type;
//   - its subject is this package at this version, and its sha512 is the
//     integrity that the lockfile pins (an attestation of another version,
//     or of another tarball, says nothing of this one);
//   - the envelope's signature verifies with the key of the certificate
//     the bundle carries;
//   - that certificate names the same repository and commit as the
//     statement (Fulcio's extensions 1.3.6.1.4.1.57264.1.12 and .13).
//
// What it does not verify offline: that Sigstore's Fulcio issued that
// certificate (its chain to Fulcio's root, whose trust root comes by
// TUF), that the signing was logged in Rekor while the certificate was
// valid (the log's signed entry timestamp and inclusion proof), and the
// registry's own signature. Anyone can make a certificate with those
// extensions and sign a statement with it; so its words say what the
// attestation claims, and Verified stays false until npm's own `npm audit
// signatures` (online, with Sigstore's trust root) has said yes.

// The attestation's types.
const (
	slsaProvenanceV1 = "https://slsa.dev/provenance/v1"
	inTotoStatement  = "https://in-toto.io/Statement/v1"
	inTotoPayload    = "application/vnd.in-toto+json"
	githubWorkflowV1 = "https://slsa-framework.github.io/github-actions-buildtypes/workflow/v1"
)

// Fulcio's certificate extensions (version 2, DER-encoded UTF8String).
var (
	oidSourceRepository = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 12}
	oidSourceCommit     = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 13}
)

// Provenance is what a version's provenance attestation says of where it
// was built.
type Provenance struct {
	// Repository, Ref, Commit and Workflow are where it was built:
	// "https://github.com/x/y", "refs/tags/v1.0.1", the commit, and the
	// workflow's file. Empty when there is no attestation.
	Repository string `json:"repository,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Commit     string `json:"commit,omitempty"`
	Workflow   string `json:"workflow,omitempty"`
	// Run is the CI run that built it, as its builder names it.
	Run string `json:"run,omitempty"`
	// Verified is true only once the certificate's chain to Sigstore's
	// root and the transparency log were checked (online); the offline
	// check never sets it.
	Verified bool `json:"verified,omitempty"`
}

// Words says where it was built: "built from github.com/x/y
// (refs/tags/v1.0.1, commit 599500821344) by its CI — claimed, not
// verified against Sigstore" or "published by hand: nothing says where it
// was built".
func (p Provenance) Words() string {
	if p.Repository == "" {
		return "published by hand: nothing says where it was built"
	}
	repo := strings.TrimPrefix(strings.TrimPrefix(p.Repository, "https://"), "http://")
	at := []string{}
	if p.Ref != "" {
		at = append(at, p.Ref)
	}
	if p.Commit != "" {
		at = append(at, "commit "+short(p.Commit))
	}
	w := "built from " + sanitize.Line(repo)
	if len(at) > 0 {
		w += " (" + sanitize.Line(strings.Join(at, ", ")) + ")"
	}
	w += " by its CI"
	if !p.Verified {
		w += " — claimed, not verified against Sigstore"
	}
	return w
}

// attestations is the registry's answer of /-/npm/v1/attestations.
type attestations struct {
	Attestations []struct {
		PredicateType string `json:"predicateType"`
		Bundle        bundle `json:"bundle"`
	} `json:"attestations"`
}

// bundle is the part of a Sigstore bundle (v0.1 to v0.3) the offline
// check reads.
type bundle struct {
	VerificationMaterial struct {
		X509CertificateChain *struct {
			Certificates []struct {
				RawBytes []byte `json:"rawBytes"`
			} `json:"certificates"`
		} `json:"x509CertificateChain"`
		Certificate *struct {
			RawBytes []byte `json:"rawBytes"`
		} `json:"certificate"`
	} `json:"verificationMaterial"`
	DSSEEnvelope struct {
		Payload     []byte `json:"payload"`
		PayloadType string `json:"payloadType"`
		Signatures  []struct {
			Sig []byte `json:"sig"`
		} `json:"signatures"`
	} `json:"dsseEnvelope"`
}

// statement is the in-toto statement of SLSA provenance v1, as far as it
// is read.
type statement struct {
	Type    string `json:"_type"`
	Subject []struct {
		Name   string            `json:"name"`
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	PredicateType string `json:"predicateType"`
	Predicate     struct {
		BuildDefinition struct {
			BuildType          string `json:"buildType"`
			ExternalParameters struct {
				Workflow struct {
					Ref        string `json:"ref"`
					Repository string `json:"repository"`
					Path       string `json:"path"`
				} `json:"workflow"`
			} `json:"externalParameters"`
			ResolvedDependencies []struct {
				URI    string            `json:"uri"`
				Digest map[string]string `json:"digest"`
			} `json:"resolvedDependencies"`
		} `json:"buildDefinition"`
		RunDetails struct {
			Metadata struct {
				InvocationID string `json:"invocationId"`
			} `json:"metadata"`
		} `json:"runDetails"`
	} `json:"predicate"`
}

// maxAttestations bounds the registry's answer that is read.
const maxAttestations = 1 << 20

// CheckProvenance checks the registry's attestations for pkg (raw, as
// /-/npm/v1/attestations/NAME@VERSION answers; nil when the registry has
// none) against what the lockfile pins, offline, and says where it was
// built. An attestation that is there but does not hold is an error: it
// is not the same as none.
func CheckProvenance(raw []byte, pkg Package) (Provenance, error) {
	if len(raw) == 0 {
		return Provenance{}, nil
	}
	if len(raw) > maxAttestations {
		return Provenance{}, errors.New("the registry's attestations are too large to read")
	}
	var all attestations
	if err := json.Unmarshal(raw, &all); err != nil {
		return Provenance{}, fmt.Errorf("reading the registry's attestations: %w", err)
	}
	found := false
	for _, a := range all.Attestations {
		if a.PredicateType != slsaProvenanceV1 {
			continue // npm's publish attestation says who published, not where it was built
		}
		if found {
			return Provenance{}, errors.New("the registry holds two provenance statements for one version")
		}
		found = true
		p, err := checkBundle(a.Bundle, pkg)
		if err != nil {
			return Provenance{}, fmt.Errorf("the provenance of %s@%s does not hold: %w", pkg.Name, pkg.Version, err)
		}
		return p, nil
	}
	return Provenance{}, nil
}

// checkBundle checks one provenance bundle against pkg.
func checkBundle(b bundle, pkg Package) (Provenance, error) {
	env := b.DSSEEnvelope
	if env.PayloadType != inTotoPayload {
		return Provenance{}, fmt.Errorf("its payload is %q, not an in-toto statement", env.PayloadType)
	}
	var st statement
	dec := json.NewDecoder(bytes.NewReader(env.Payload))
	if err := dec.Decode(&st); err != nil {
		return Provenance{}, fmt.Errorf("reading its statement: %w", err)
	}
	if st.Type != inTotoStatement || st.PredicateType != slsaProvenanceV1 {
		return Provenance{}, fmt.Errorf("its statement is %q of %q, not SLSA provenance v1", st.Type, st.PredicateType)
	}
	if err := subjectIs(st, pkg); err != nil {
		return Provenance{}, err
	}
	cert, err := leafCertificate(b)
	if err != nil {
		return Provenance{}, err
	}
	if err := verifyDSSE(cert, env.PayloadType, env.Payload, env.Signatures); err != nil {
		return Provenance{}, err
	}
	bd := st.Predicate.BuildDefinition
	if bd.BuildType != githubWorkflowV1 {
		return Provenance{}, fmt.Errorf("it was built by %q, which mcptray does not read yet", bd.BuildType)
	}
	wf := bd.ExternalParameters.Workflow
	p := Provenance{Repository: wf.Repository, Ref: wf.Ref, Workflow: wf.Path, Run: st.Predicate.RunDetails.Metadata.InvocationID}
	for _, d := range bd.ResolvedDependencies {
		if c := d.Digest["gitCommit"]; c != "" {
			p.Commit = c
		}
	}
	// The certificate says whom Fulcio issued it to: the statement's
	// claims must be the same.
	certRepo, certCommit := extension(cert, oidSourceRepository), extension(cert, oidSourceCommit)
	if certRepo == "" || certRepo != p.Repository {
		return Provenance{}, fmt.Errorf("the statement says %q built it, its certificate %q", p.Repository, certRepo)
	}
	if certCommit == "" || certCommit != p.Commit {
		return Provenance{}, fmt.Errorf("the statement says commit %q, its certificate %q", p.Commit, certCommit)
	}
	return p, nil
}

// subjectIs checks that the statement's one subject is pkg's tarball, as
// its integrity pins it.
func subjectIs(st statement, pkg Package) error {
	if len(st.Subject) != 1 {
		return fmt.Errorf("its statement names %d subjects, not one", len(st.Subject))
	}
	s := st.Subject[0]
	if want := purl(pkg.Name, pkg.Version); s.Name != want {
		return fmt.Errorf("it is the provenance of %q, not of %q", s.Name, want)
	}
	alg, sum, ok := strings.Cut(pkg.Integrity, "-")
	if !ok || alg != "sha512" {
		return fmt.Errorf("the lockfile's integrity %q is not a sha512", pkg.Integrity)
	}
	pinned, err := base64.StdEncoding.DecodeString(sum)
	if err != nil {
		return fmt.Errorf("the lockfile's integrity is not base64: %w", err)
	}
	said, err := hex.DecodeString(s.Digest["sha512"])
	if err != nil || !bytes.Equal(said, pinned) {
		return errors.New("it is the provenance of another tarball than the one pinned")
	}
	return nil
}

// purl is the package URL a provenance statement names a package by:
// pkg:npm/%40scope/name@1.2.3.
func purl(name, version string) string {
	return "pkg:npm/" + strings.ReplaceAll(url.PathEscape(name), "%2F", "/") + "@" + version
}

// leafCertificate is the certificate that signed the envelope.
func leafCertificate(b bundle) (*x509.Certificate, error) {
	var der []byte
	vm := b.VerificationMaterial
	switch {
	case vm.Certificate != nil:
		der = vm.Certificate.RawBytes
	case vm.X509CertificateChain != nil && len(vm.X509CertificateChain.Certificates) > 0:
		der = vm.X509CertificateChain.Certificates[0].RawBytes
	default:
		return nil, errors.New("it carries no certificate")
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("reading its certificate: %w", err)
	}
	return cert, nil
}

// verifyDSSE checks that one of the envelope's signatures is the
// certificate key's, over DSSE's pre-authentication encoding.
func verifyDSSE(cert *x509.Certificate, payloadType string, payload []byte, sigs []struct {
	Sig []byte `json:"sig"`
}) error {
	key, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return fmt.Errorf("its certificate's key is %T, not ECDSA as Fulcio's are", cert.PublicKey)
	}
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d ", len(payloadType), payloadType, len(payload))
	pae = append(pae, payload...)
	digest := sha256.Sum256(pae)
	for _, s := range sigs {
		if ecdsa.VerifyASN1(key, digest[:], s.Sig) {
			return nil
		}
	}
	return errors.New("its signature does not verify with its certificate: the statement was changed after it was signed")
}

// extension reads one of Fulcio's string extensions of cert, "" when
// absent.
func extension(cert *x509.Certificate, oid asn1.ObjectIdentifier) string {
	for _, e := range cert.Extensions {
		if e.Id.Equal(oid) {
			var s string
			if _, err := asn1.UnmarshalWithParams(e.Value, &s, "utf8"); err == nil {
				return s
			}
		}
	}
	return ""
}
