package bundle

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/smallstep/pkcs7"
)

// The block mcpb sign appends to a bundle: the header, the PKCS#7
// signature's length (4 bytes, little-endian), the signature (DER,
// detached, over every byte of the bundle before the header), the footer.
const (
	sigHeader = "MCPB_SIG_V1"
	sigFooter = "MCPB_SIG_END"
)

// SignatureStatus says whether and how a bundle is signed.
type SignatureStatus int

// The statuses.
const (
	// Unsigned: it carries no signature.
	Unsigned SignatureStatus = iota
	// SelfSigned: signed with a certificate that vouches for itself, so
	// the signature says only that it did not change since.
	SelfSigned
	// Signed: signed with a certificate this computer trusts for signing
	// code.
	Signed
	// Untrusted: signed with a certificate that is neither self-signed
	// nor issued by one this computer trusts.
	Untrusted
)

// Signature is what a bundle's signature says.
type Signature struct {
	Status SignatureStatus
	// Signer and Issuer name the certificate's subject and issuer (their
	// common names, or else the whole name).
	Signer string
	Issuer string
	// Fingerprint is the SHA-256 of the signer's certificate, in hex.
	Fingerprint string
	// Why says why an Untrusted certificate is not trusted.
	Why string
}

// String says it as the install dialog does.
func (s Signature) String() string {
	switch s.Status {
	case SelfSigned:
		return fmt.Sprintf("Signed by %s (self-signed)", s.Signer)
	case Signed:
		return fmt.Sprintf("Signed by %s", s.Signer)
	case Untrusted:
		return fmt.Sprintf("Signed by %s, with a certificate this computer does not trust (%s)", s.Signer, s.Why)
	default:
		return "Not signed"
	}
}

// split parts a bundle's bytes into its zip and its signature (nil when
// it has none). A file that ends as a signed one does but whose block does
// not hold together is refused rather than taken as unsigned.
func split(data []byte) (content, sig []byte, err error) {
	if !bytes.HasSuffix(data, []byte(sigFooter)) {
		return data, nil, nil
	}
	end := len(data) - len(sigFooter)
	for i := bytes.LastIndex(data[:end], []byte(sigHeader)); i >= 0; i = bytes.LastIndex(data[:i], []byte(sigHeader)) {
		at := i + len(sigHeader)
		if at+4 > end {
			continue
		}
		n := binary.LittleEndian.Uint32(data[at:])
		if uint64(at)+4+uint64(n) == uint64(end) {
			return data[:i], data[at+4 : end], nil
		}
	}
	return nil, nil, refuse("ends as a signed bundle does, but its signature block is damaged; get the bundle again from where you found it")
}

// verify checks sig, a PKCS#7 signature, against content and says who
// signed it. A signature that does not match is an error: the bundle
// changed after it was signed.
func verify(content, sig []byte, roots *x509.CertPool, now time.Time) (Signature, error) {
	p7, err := pkcs7.Parse(sig)
	if err != nil {
		return Signature{}, refuse("carries a signature that cannot be read (" + strings.TrimPrefix(err.Error(), "pkcs7: ") + "); get the bundle again from where you found it")
	}
	p7.Content = content
	cert := p7.GetOnlySigner()
	if cert == nil {
		return Signature{}, refuse("carries a signature without exactly one signer's certificate, which mcptray cannot check")
	}
	if err := p7.Verify(); err != nil {
		if _, ok := errors.AsType[*pkcs7.MessageDigestMismatchError](err); ok {
			return Signature{}, refuse("changed after it was signed: its files are not the ones its signer signed; do not install it, and get it again from its author")
		}
		if _, ok := errors.AsType[*pkcs7.SigningTimeNotValidError](err); ok || !signedAsWritten(sig, cert, p7) {
			return Signature{}, refuse("carries a signature that does not match it (" + strings.TrimPrefix(err.Error(), "pkcs7: ") + "); do not install it, and get it again from its author")
		}
	}
	sum := sha256.Sum256(cert.Raw)
	s := Signature{Signer: nameOf(cert.Subject.CommonName, cert.Subject.String()),
		Issuer: nameOf(cert.Issuer.CommonName, cert.Issuer.String()), Fingerprint: hex.EncodeToString(sum[:])}
	if bytes.Equal(cert.RawSubject, cert.RawIssuer) && cert.CheckSignatureFrom(cert) == nil {
		s.Status = SelfSigned
		return s, nil
	}
	inter := x509.NewCertPool()
	for _, c := range p7.Certificates {
		if c != cert {
			inter.AddCert(c)
		}
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: now,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}})
	if err != nil {
		s.Status, s.Why = Untrusted, untrustedWhy(err, s.Issuer)
		return s, nil
	}
	s.Status = Signed
	return s, nil
}

func nameOf(cn, whole string) string {
	if cn != "" {
		return cn
	}
	if whole != "" {
		return whole
	}
	return "an unnamed signer"
}

func untrustedWhy(err error, issuer string) string {
	switch e := err.(type) {
	case x509.UnknownAuthorityError:
		return "it was issued by " + issuer + ", whom this computer does not know"
	case x509.CertificateInvalidError:
		switch e.Reason {
		case x509.Expired:
			return "it has expired, or is not valid yet"
		case x509.IncompatibleUsage:
			return "it is not a certificate for signing code"
		}
	}
	return err.Error()
}

// The parts of a PKCS#7 signature that signedAsWritten reads as they were
// written.
type (
	rawContentInfo struct {
		ContentType asn1.ObjectIdentifier
		Content     rawSignedData `asn1:"explicit,tag:0"`
	}
	rawSignedData struct {
		Version          int
		DigestAlgorithms asn1.RawValue
		ContentInfo      asn1.RawValue
		Certificates     asn1.RawValue   `asn1:"optional,tag:0"`
		CRLs             asn1.RawValue   `asn1:"optional,tag:1"`
		SignerInfos      []rawSignerInfo `asn1:"set"`
	}
	rawSignerInfo struct {
		Version                   int
		IssuerAndSerial           asn1.RawValue
		DigestAlgorithm           pkix.AlgorithmIdentifier
		Attributes                asn1.RawValue `asn1:"optional,tag:0"`
		DigestEncryptionAlgorithm pkix.AlgorithmIdentifier
		EncryptedDigest           []byte
		Unauthenticated           asn1.RawValue `asn1:"optional,tag:1"`
	}
)

// The digests a signature may be made with.
var digestAlgorithms = map[string]map[x509.PublicKeyAlgorithm]x509.SignatureAlgorithm{
	"2.16.840.1.101.3.4.2.1": {x509.RSA: x509.SHA256WithRSA, x509.ECDSA: x509.ECDSAWithSHA256},
	"2.16.840.1.101.3.4.2.2": {x509.RSA: x509.SHA384WithRSA, x509.ECDSA: x509.ECDSAWithSHA384},
	"2.16.840.1.101.3.4.2.3": {x509.RSA: x509.SHA512WithRSA, x509.ECDSA: x509.ECDSAWithSHA512},
}

// signedAsWritten checks the signature over its signed attributes as they
// were written. mcpb sign (node-forge) writes them in the order it was
// given them, not in DER's sorted order; the PKCS#7 library encodes them
// anew, sorted, before it checks, and so finds a good signature bad. It
// is called once the library found the content's digest among them
// matching: only their signature is left to check.
func signedAsWritten(sig []byte, cert *x509.Certificate, p7 *pkcs7.PKCS7) bool {
	var ci rawContentInfo
	if rest, err := asn1.Unmarshal(sig, &ci); err != nil || len(rest) > 0 || len(ci.Content.SignerInfos) != 1 {
		return false
	}
	si := ci.Content.SignerInfos[0]
	if len(si.Attributes.FullBytes) == 0 || len(p7.Signers) != 1 || !bytes.Equal(si.EncryptedDigest, p7.Signers[0].EncryptedDigest) {
		return false
	}
	alg, ok := digestAlgorithms[si.DigestAlgorithm.Algorithm.String()][cert.PublicKeyAlgorithm]
	if !ok {
		return false
	}
	// What was signed is the attributes as a SET, not as the [0] that
	// holds them in the signature.
	signed := slices.Clone(si.Attributes.FullBytes)
	signed[0] = 0x31
	return cert.CheckSignature(alg, signed, si.EncryptedDigest) == nil
}
