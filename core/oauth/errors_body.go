package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// errorBodyTripper repairs token responses from authorization servers that
// break RFC 6749 §5.2 in two known ways:
//
//   - a 2xx answer whose body is an OAuth error and not a token (Slack does
//     this) becomes a 400, so the error is seen as one;
//   - the error codes invalid_refresh_token, expired_refresh_token and
//     token_expired become invalid_grant, which is what they mean: the
//     person must sign in again.
//
// It touches only POST responses with a JSON or form-encoded body of at
// most maxErrorBody bytes: token endpoint answers, never MCP traffic.
type errorBodyTripper struct{ next http.RoundTripper }

const maxErrorBody = 64 << 10

// invalidGrantAliases are the error codes that mean invalid_grant.
var invalidGrantAliases = map[string]bool{
	"invalid_refresh_token": true,
	"expired_refresh_token": true,
	"token_expired":         true,
}

func (t errorBodyTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && mt != "application/x-www-form-urlencoded" && mt != "text/plain" {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > maxErrorBody {
		// Too large to be an error document; hand it on untouched.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), resp.Body))
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var doc map[string]any
	if mt == "application/json" || mt == "text/plain" {
		if json.Unmarshal(body, &doc) != nil {
			return resp, nil
		}
	} else {
		return resp, nil // form bodies are only from servers old enough not to do this
	}
	code, _ := doc["error"].(string)
	_, hasToken := doc["access_token"]
	if code == "" || hasToken {
		return resp, nil
	}
	changed := false
	if invalidGrantAliases[code] {
		doc["error"] = "invalid_grant"
		changed = true
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.StatusCode = http.StatusBadRequest
		resp.Status = "400 Bad Request"
	}
	if changed {
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		resp.Header.Set("Content-Type", "application/json")
	}
	return resp, nil
}
