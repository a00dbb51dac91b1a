package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestClientAssertionVerifies: the private_key_jwt assertion made with
// each kind of key verifies with its public key under the algorithm the
// key (or the config) names, and carries RFC 7523's claims.
func TestClientAssertionVerifies(t *testing.T) {
	t.Parallel()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	tests := []struct {
		name string
		key  crypto.Signer
		alg  string // configured; "" lets the key choose
		want jose.SignatureAlgorithm
	}{
		{"P-256", p256, "", jose.ES256},
		{"P-384", p384, "", jose.ES384},
		{"RSA", rsaKey, "", jose.RS256},
		{"RSA-PSS", rsaKey, "PS256", jose.PS256},
		{"Ed25519", edKey, "", jose.EdDSA},
	}
	now := time.Now()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &storedClient{ClientID: "machine", Issuer: "https://as.example.com", PrivateKeyPEM: pkcs8PEM(t, tt.key), SigningAlg: tt.alg}
			assertion, err := clientAssertion(c, now)
			if err != nil {
				t.Fatalf("clientAssertion: %v", err)
			}
			tok, err := jwt.ParseSigned(assertion, []jose.SignatureAlgorithm{tt.want})
			if err != nil {
				t.Fatalf("not a %s JWT: %v", tt.want, err)
			}
			var claims jwt.Claims
			if err := tok.Claims(tt.key.Public(), &claims); err != nil {
				t.Fatalf("the signature does not verify: %v", err)
			}
			err = claims.Validate(jwt.Expected{Issuer: "machine", Subject: "machine", AnyAudience: jwt.Audience{"https://as.example.com"}, Time: now})
			if err != nil || claims.ID == "" || claims.IssuedAt == nil {
				t.Errorf("claims %+v: %v; want RFC 7523's, with a jti", claims, err)
			}
		})
	}
}

// TestClientAssertionRefusesWrongAlg: a configured algorithm the key
// cannot sign is an error, not a token that will not verify.
func TestClientAssertionRefusesWrongAlg(t *testing.T) {
	t.Parallel()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, alg := range []string{"RS256", "ES384"} {
		c := &storedClient{ClientID: "machine", Issuer: "https://as.example.com", PrivateKeyPEM: pkcs8PEM(t, p256), SigningAlg: alg}
		if a, err := clientAssertion(c, time.Now()); err == nil {
			t.Errorf("a P-256 key signed %s: %s", alg, a)
		}
	}
}

func pkcs8PEM(t *testing.T, key crypto.Signer) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}
