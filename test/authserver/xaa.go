package authserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Cross-App Access grant and token types.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	typIDJAG           = "oauth-id-jag+jwt"
)

// Subject is the person every ID token names.
const Subject = "person-1"

// AddClient registers a client ahead of time, as an administrator does
// for Cross-App Access: mcptray's client at the identity provider, and at
// the MCP server's authorization server.
func (s *Servers) AddClient(id, secret string) {
	s.mu.Lock()
	s.clients[id] = secret
	s.secrets = append(s.secrets, secret)
	s.mu.Unlock()
}

func newSigningKey() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return k
}

// jagClaims are an ID-JAG's claims beyond the registered ones.
type jagClaims struct {
	jwt.Claims
	Resource string `json:"resource"`
	Scope    string `json:"scope,omitempty"`
}

// idTokenLocked signs an ID token naming Subject, for clientID, good as
// long as the access tokens.
func (s *Servers) idTokenLocked(clientID string) string {
	now := time.Now()
	tok := s.sign("JWT", jwt.Claims{
		Issuer: s.Issuer, Subject: Subject, Audience: jwt.Audience{clientID},
		IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(s.accessTTL)),
	})
	s.secrets = append(s.secrets, tok)
	return tok
}

func (s *Servers) sign(typ string, claims any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: s.key},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		panic(err)
	}
	out, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		panic(err)
	}
	return out
}

// verify checks that raw is a JWT of type typ this server signed and reads
// its claims into dst.
func (s *Servers) verify(raw, typ string, dst any) error {
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return err
	}
	if len(tok.Headers) != 1 || tok.Headers[0].ExtraHeaders[jose.HeaderType] != typ {
		return errors.New("wrong token type")
	}
	return tok.Claims(&s.key.PublicKey, dst)
}

// tokenExchange takes an ID token this server issued to clientID and
// gives an ID-JAG for the MCP server (RFC 8693, Cross-App Access).
func (s *Servers) tokenExchange(w http.ResponseWriter, r *http.Request, clientID string) {
	f := r.Form
	if f.Get("subject_token_type") != tokenTypeIDToken || f.Get("requested_token_type") != tokenTypeIDJAG {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_request"})
		return
	}
	var id jwt.Claims
	if err := s.verify(f.Get("subject_token"), "JWT", &id); err != nil ||
		id.Validate(jwt.Expected{Issuer: s.Issuer, AnyAudience: jwt.Audience{clientID}, Time: time.Now()}) != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "not a good ID token"})
		return
	}
	if f.Get("audience") != s.Issuer || f.Get("resource") != s.MCPURL {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_target"})
		return
	}
	now := time.Now()
	jag := s.sign(typIDJAG, jagClaims{
		Claims: jwt.Claims{
			Issuer: s.Issuer, Subject: id.Subject, Audience: jwt.Audience{f.Get("audience")},
			IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(5 * time.Minute)), ID: rand.Text(),
		},
		Resource: f.Get("resource"), Scope: f.Get("scope"),
	})
	s.mu.Lock()
	s.exchanges++
	s.secrets = append(s.secrets, jag)
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A", "expires_in": 300,
	})
}

// jwtBearer takes an ID-JAG this server issued for the MCP server and
// gives an access token for it (RFC 7523), with no refresh token: a new
// one comes from a new exchange.
func (s *Servers) jwtBearer(w http.ResponseWriter, r *http.Request) {
	var jag jagClaims
	if err := s.verify(r.Form.Get("assertion"), typIDJAG, &jag); err != nil ||
		jag.Validate(jwt.Expected{Issuer: s.Issuer, AnyAudience: jwt.Audience{s.Issuer}, Time: time.Now()}) != nil ||
		jag.Resource != s.MCPURL {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "not a good ID-JAG"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bearers++
	s.issued++
	s.nextFam++
	at := s.newSecret("at-")
	s.access[at] = &accessToken{family: s.nextFam, resource: s.MCPURL, expiry: time.Now().Add(s.accessTTL)}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": at, "token_type": "Bearer", "expires_in": max(1, int(s.accessTTL/time.Second)), "scope": "mcp",
	})
}
