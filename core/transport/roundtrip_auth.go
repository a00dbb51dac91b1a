package transport

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// authTripper signs requests with the TokenSource's bearer token and turns a
// 401 or 403 answer into an *AuthError.
//
// It returns an error rather than the 401 response because mcp-go, given the
// response, keeps too little: a 401 becomes its AuthorizationRequiredError
// with only the resource_metadata URL, and a 403 becomes "likely a legacy SSE
// server" on initialize, or a plain "request failed with status 403"
// elsewhere, which no caller could tell from any other failure. An error from
// RoundTrip reaches the caller through every mcp-go transport wrapped with
// %w (and through coder/websocket's dial), so errors.As finds it.
//
// A TokenSource that is a ProofSource may give key-bound (DPoP) tokens: each
// request then carries a fresh proof with the server's last nonce, and a
// request the server refuses for want of a new nonce (401 use_dpop_nonce,
// RFC 9449 §9) is sent once more with it. A server that refuses a key-bound
// token as if it knew only Bearer ones makes the ProofSource stop binding
// them (ProofSource.DPoPRefused); the request is then sent once more when
// there is a plain token to send at once, and otherwise fails with an
// AuthError that says so.
type authTripper struct {
	next   http.RoundTripper
	tokens TokenSource // nil: no auth

	mu sync.Mutex
	// nonce is the server's last DPoP-Nonce.
	nonce string
}

func (t *authTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	signed := t.tokens != nil && sameHostAsFirst(req)
	var refused *AuthError // the server refused the key-bound token
	for retried := false; ; retried = true {
		r, proved, err := req, false, error(nil)
		if signed {
			if r, proved, err = t.sign(req, retried); err != nil {
				return nil, err
			}
		}
		if refused != nil && r.Header.Get("Authorization") == "" {
			// No token to send without the key: the person signs in.
			if r.Body != nil {
				r.Body.Close()
			}
			return nil, refused
		}
		resp, err := t.next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		nonce := resp.Header.Get(dpopNonceHeader)
		if proved && nonce != "" {
			t.mu.Lock()
			t.nonce = nonce
			t.mu.Unlock()
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, nil
		}
		authErr := newAuthError(resp)
		// Read a little so the connection can be reused; a challenge body
		// is small.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		canRetry := !retried && (!hasBody(req) || req.GetBody != nil)
		if proved && refusesDPoP(resp.StatusCode, authErr) {
			authErr.DPoPRefused = true
			if ps, ok := t.tokens.(ProofSource); ok {
				ps.DPoPRefused(req.Context())
			}
			if !canRetry {
				return nil, authErr
			}
			refused = authErr
			continue
		}
		if !canRetry || !proved || nonce == "" || !wantsNonce(resp) {
			return nil, authErr
		}
	}
}

// refusesDPoP reports whether a server's answer to a key-bound token says
// it does not take them: a 401 whose challenges have no DPoP among them
// (RFC 9449 §7.1: a server that takes DPoP-bound tokens challenges with
// DPoP), such as the TypeScript SDK's `Bearer error="invalid_token"` for an
// Authorization header that is not Bearer.
func refusesDPoP(status int, e *AuthError) bool {
	return status == http.StatusUnauthorized && len(e.Schemes) > 0 && !e.Offers("DPoP")
}

// sign returns a copy of req with the token (and DPoP proof) on it, or req
// itself when there is no token; proved says a proof went with it. again
// means req was sent once already, so its body must be read anew.
func (t *authTripper) sign(req *http.Request, again bool) (r *http.Request, proved bool, err error) {
	var authorization, proof string
	if ps, ok := t.tokens.(ProofSource); ok {
		t.mu.Lock()
		nonce := t.nonce
		t.mu.Unlock()
		authorization, proof, err = ps.Authorization(req.Context(), req.Method, req.URL.String(), nonce)
	} else {
		var token string
		token, err = t.tokens.Token(req.Context())
		if token != "" {
			authorization = "Bearer " + token
		}
	}
	if err != nil {
		if IsAuthError(err) || req.Context().Err() != nil {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("getting the sign-in token: %w", err)
	}
	if authorization == "" && !again {
		return req, false, nil
	}
	// A RoundTripper must not change the request it was given.
	r = req.Clone(req.Context())
	if again && hasBody(req) {
		if r.Body, err = req.GetBody(); err != nil {
			return nil, false, fmt.Errorf("sending the request again: %w", err)
		}
	}
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	if proof != "" {
		r.Header.Set("DPoP", proof)
	}
	return r, proof != "", nil
}

// hasBody reports whether req has a body to send.
func hasBody(req *http.Request) bool { return req.Body != nil && req.Body != http.NoBody }

// dpopNonceHeader carries the server's nonce for the next DPoP proof.
const dpopNonceHeader = "DPoP-Nonce"

// wantsNonce reports whether a 401 is a DPoP challenge for a proof with
// the server's nonce (RFC 9449 §9).
func wantsNonce(resp *http.Response) bool {
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		for _, c := range parseChallenges(v) {
			if strings.EqualFold(c.scheme, "DPoP") && c.params["error"] == "use_dpop_nonce" {
				return true
			}
		}
	}
	return false
}

// sameHostAsFirst reports whether req goes to the host of the request that
// started its redirect chain, so that a redirect never carries the token to
// another server.
func sameHostAsFirst(req *http.Request) bool {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	return first.URL.Host == req.URL.Host
}
