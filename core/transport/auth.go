package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	mcptransport "github.com/mark3labs/mcp-go/client/transport"
)

// TokenSource gives the bearer token for a server's requests. Sign-in
// implements it; the transport only asks, once per request, so a refreshed
// token is used as soon as there is one.
//
// A TokenSource that cannot give a token without the person signing in
// again should return an error for which IsAuthError is true (an *AuthError
// with Status 0 will do); any other error fails the request as it is.
// An empty token and no error means "send no token".
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// ProofSource is a TokenSource whose tokens may be bound to a key of
// mcptray's (DPoP, RFC 9449). The transport asks it, rather than Token, for
// every request: such a token goes with the DPoP scheme and a fresh proof of
// the key made for that one request.
type ProofSource interface {
	TokenSource
	// Authorization returns the Authorization header for a request with
	// method to target ("" to send none) and, for a key-bound token, the
	// DPoP proof to send with it, with nonce (the server's last DPoP-Nonce,
	// "" for none) in it. Errors are as Token's.
	Authorization(ctx context.Context, method, target, nonce string) (authorization, proof string, err error)
	// DPoPRefused says the server refused a key-bound token without a DPoP
	// challenge: it does not take DPoP, whatever its metadata said. The
	// source stops binding this server's tokens and drops the bound ones;
	// the request is sent once more if Authorization then has a token to
	// give (one a machine identity gets at once).
	DPoPRefused(ctx context.Context)
}

// AuthError means the server wants a sign-in mcptray does not have: it
// answered 401 or 403, or the TokenSource could not give a token. The
// connection manager moves the server to needs-auth on it.
type AuthError struct {
	// Status is the HTTP status, 401 or 403; 0 when no request went out
	// because the TokenSource failed (Err says why).
	Status int
	// WWWAuthenticate is the server's challenge as it sent it.
	WWWAuthenticate string
	// Scope, ResourceMetadata, ErrorCode and ErrorDescription are the scope,
	// resource_metadata (RFC 9728), error and error_description parameters
	// of the Bearer challenge (RFC 6750), when it has them. ErrorCode is the
	// "error" parameter: a field cannot share the name of the Error method.
	Scope            string
	ResourceMetadata string
	ErrorCode        string
	ErrorDescription string
	// Schemes are the auth-schemes of all the server's challenges, as it
	// sent them ("Bearer", "DPoP"); DPoPAlgs the algs parameter of its DPoP
	// challenge (RFC 9449 §7.1): the algorithms it takes proofs in, none
	// when it did not say.
	Schemes  []string
	DPoPAlgs []string
	// DPoPRefused means the request carried a key-bound (DPoP) token and
	// the server refused it without a DPoP challenge: it takes only Bearer
	// tokens. The ProofSource was told.
	DPoPRefused bool
	// Err is the TokenSource's error when Status is 0.
	Err error
}

// Offers reports whether the server's challenge includes scheme
// (case-insensitive, as auth-schemes are).
func (e *AuthError) Offers(scheme string) bool {
	for _, s := range e.Schemes {
		if strings.EqualFold(s, scheme) {
			return true
		}
	}
	return false
}

// Error says in plain words what is wrong. It never contains a token.
func (e *AuthError) Error() string {
	switch {
	case e.Status == 0 && e.Err != nil:
		return "sign-in needed: " + e.Err.Error()
	case e.Status == 0:
		return "sign-in needed"
	case e.DPoPRefused:
		return "the server does not take this sign-in, which is bound to a key (DPoP): sign in again, and mcptray will sign in to it without one"
	case e.ErrorCode == "insufficient_scope" && e.Scope != "":
		return fmt.Sprintf("the server needs more permissions than this sign-in gives (it asks for %q): sign in again", e.Scope)
	case e.ErrorCode == "insufficient_scope":
		return "the server needs more permissions than this sign-in gives: sign in again"
	case e.ErrorCode == "invalid_token":
		return "the server no longer accepts this sign-in (it expired or was revoked): sign in again"
	case e.Status == http.StatusForbidden:
		return "the server refused access (HTTP 403): sign in with an account that may use it"
	default:
		return "the server needs you to sign in (HTTP 401)"
	}
}

// Unwrap returns the TokenSource's error, if any.
func (e *AuthError) Unwrap() error { return e.Err }

// IsAuthError reports whether err means the person must sign in: an
// *AuthError anywhere in its chain, or mcp-go's own sign-in errors (what
// mcp-go returns for a 401 when the HTTP client is not NewHTTPClient's).
func IsAuthError(err error) bool {
	if err == nil {
		return false
	}
	var ae *AuthError
	return errors.As(err, &ae) ||
		errors.Is(err, mcptransport.ErrAuthorizationRequired) ||
		errors.Is(err, mcptransport.ErrOAuthAuthorizationRequired) ||
		errors.Is(err, mcptransport.ErrUnauthorized)
}

// newAuthError reads a 401 or 403 response's challenge.
func newAuthError(resp *http.Response) *AuthError {
	values := resp.Header.Values("WWW-Authenticate")
	e := &AuthError{Status: resp.StatusCode, WWWAuthenticate: strings.Join(values, ", ")}
	var chosen *challenge
	var all []challenge
	for _, v := range values {
		all = append(all, parseChallenges(v)...)
	}
	for _, c := range all {
		e.Schemes = append(e.Schemes, c.scheme)
		if strings.EqualFold(c.scheme, "DPoP") && e.DPoPAlgs == nil {
			e.DPoPAlgs = strings.Fields(c.params["algs"])
		}
	}
	for i := range all {
		if strings.EqualFold(all[i].scheme, "Bearer") {
			chosen = &all[i]
			break
		}
	}
	if chosen == nil && len(all) > 0 {
		chosen = &all[0]
	}
	if chosen != nil {
		e.Scope = chosen.params["scope"]
		e.ResourceMetadata = chosen.params["resource_metadata"]
		e.ErrorCode = chosen.params["error"]
		e.ErrorDescription = chosen.params["error_description"]
	}
	return e
}

// challenge is one auth-scheme of a WWW-Authenticate header with its
// parameters, names in lower case.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges reads the challenges of one WWW-Authenticate value (RFC
// 9110 §11.6.1), which may hold several: `Basic realm="x", Bearer
// scope="a b", error="invalid_token"`. A token68 (`Basic dXNlcg==`) is
// skipped; mcptray needs only parameters. It never fails: what it cannot
// read, it skips.
func parseChallenges(header string) []challenge {
	var out []challenge
	s := header
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			return out
		}
		name, rest := cutToken(s)
		if name == "" {
			s = s[1:] // not a token: skip one byte, so the loop always moves on
			continue
		}
		after := strings.TrimLeft(rest, " \t")
		if len(out) > 0 && strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") {
			value, more := cutValue(strings.TrimLeft(after[1:], " \t"))
			key := strings.ToLower(name)
			if _, seen := out[len(out)-1].params[key]; !seen {
				out[len(out)-1].params[key] = value
			}
			s = more
			continue
		}
		out = append(out, challenge{scheme: name, params: map[string]string{}})
		s = rest
	}
}

// cutToken splits s after its leading RFC 9110 token, which may be empty.
func cutToken(s string) (token, rest string) {
	i := 0
	for i < len(s) && isTokenChar(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// cutValue reads a parameter value, a quoted-string or a token, from the
// start of s.
func cutValue(s string) (value, rest string) {
	if !strings.HasPrefix(s, `"`) {
		i := strings.IndexAny(s, ", \t")
		if i < 0 {
			return s, ""
		}
		return s[:i], s[i:]
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "" // no closing quote: take what there is
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
