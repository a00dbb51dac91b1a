package authserver

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DPoP (RFC 9449). The authorization server can offer it, as oidc-provider,
// Keycloak and Okta do: a token request with a proof gets tokens bound to
// the proof's key (and a refresh of them needs a proof of the same key);
// one without gets Bearer tokens. The MCP server can take Bearer tokens
// only, as most do, or DPoP-bound ones only, or say it takes DPoP-bound
// ones and take only Bearer ones all the same.

// Resource is how the MCP server takes tokens.
type Resource int

const (
	// BearerOnly takes Bearer tokens and says nothing of DPoP, as the
	// TypeScript SDK's requireBearerAuth: another scheme gets 401 with a
	// Bearer invalid_token challenge. The default.
	BearerOnly Resource = iota
	// DPoPRequired says in its metadata that it takes only DPoP-bound
	// tokens (dpop_bound_access_tokens_required), challenges with DPoP,
	// and checks each request's proof against the token's key.
	DPoPRequired
	// DPoPClaimed says in its metadata that it takes DPoP-bound tokens,
	// and takes only Bearer ones all the same, as BearerOnly.
	DPoPClaimed
)

// SetDPoP makes the authorization server offer DPoP or not (at first not),
// and sets how the MCP server takes tokens.
func (s *Servers) SetDPoP(offer bool, r Resource) {
	s.mu.Lock()
	s.dpopOffered, s.resource = offer, r
	s.mu.Unlock()
}

// dpopClaims are a proof's claims (RFC 9449 §4.2).
type dpopClaims struct {
	ID     string `json:"jti"`
	Method string `json:"htm"`
	URL    string `json:"htu"`
	IAt    int64  `json:"iat"`
	ATH    string `json:"ath"`
}

// checkProof checks a DPoP proof as RFC 9449 §4.3 says, for a request with
// method to target carrying accessToken ("" for a token request), and
// returns the thumbprint of its key (a token's cnf.jkt).
func checkProof(proof, method, target, accessToken string) (string, error) {
	jws, err := jose.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.PS256, jose.EdDSA})
	if err != nil || len(jws.Signatures) != 1 {
		return "", errors.New("the proof is not a JWS")
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", errors.New("the proof's header is not a DPoP one with a public key")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", errors.New("the proof's signature does not verify")
	}
	var c dpopClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", errors.New("the proof's claims are not JSON")
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.Fragment = "", ""
	var ath string
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		ath = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if c.ID == "" || c.Method != method || c.URL != u.String() || c.ATH != ath ||
		time.Since(time.Unix(c.IAt, 0)).Abs() > time.Minute {
		return "", errors.New("the proof is not for this request")
	}
	thumb, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(thumb), nil
}
