package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"

	"golang.org/x/oauth2"
)

// httpClient returns the client for OAuth requests: each request bounded by
// RequestTimeout on its own, error bodies repaired, and extra form
// parameters (the RFC 8707 resource on a refresh, which oauth2 cannot add)
// put on token requests that lack them.
func (m *Manager) httpClient(extra url.Values) *http.Client {
	return m.tokenHTTPClient(extra, nil)
}

// tokenHTTPClient is httpClient that, given a DPoP key, puts a proof on
// every POST: the client for a token request to a server that binds
// tokens to mcptray's key.
func (m *Manager) tokenHTTPClient(extra url.Values, key *dpopKey) *http.Client {
	var rt http.RoundTripper = errorBodyTripper{next: m.opts.Transport}
	if key != nil {
		rt = dpopTripper{next: rt, key: key, m: m}
	}
	if len(extra) > 0 {
		rt = formParamTripper{next: rt, add: extra}
	}
	return &http.Client{
		Transport: rt,
		Timeout:   RequestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			// Metadata and token endpoints answer; they do not send
			// mcptray elsewhere with its credentials.
			return http.ErrUseLastResponse
		},
	}
}

// oauthContext carries the HTTP client to golang.org/x/oauth2.
func (m *Manager) oauthContext(ctx context.Context, extra url.Values) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, m.httpClient(extra))
}

// tokenContext is oauthContext for a token request, with DPoP proofs when
// key is not nil.
func (m *Manager) tokenContext(ctx context.Context, extra url.Values, key *dpopKey) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, m.tokenHTTPClient(extra, key))
}

// formParamTripper adds parameters to form-encoded POST bodies that lack
// them.
type formParamTripper struct {
	next http.RoundTripper
	add  url.Values
}

func (t formParamTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil ||
		!strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return t.next.RoundTrip(req)
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, err
	}
	for k, v := range t.add {
		if !form.Has(k) {
			form[k] = v
		}
	}
	enc := form.Encode()
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(strings.NewReader(enc))
	req.ContentLength = int64(len(enc))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
	return t.next.RoundTrip(req)
}

// getJSON fetches a metadata document. found is false for 404 and the
// other "not here" answers, so discovery can try the next place.
func (m *Manager) getJSON(ctx context.Context, u string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := m.httpClient(nil).Do(req)
	if err != nil {
		return false, fmt.Errorf("fetching %s: %w", redact(u), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 || resp.StatusCode >= 300 && resp.StatusCode < 400 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("fetching %s: HTTP %d", redact(u), resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return false, fmt.Errorf("reading %s: %w", redact(u), err)
	}
	return true, nil
}

// postJSON posts v as JSON and decodes the answer into out.
func (m *Manager) postJSON(ctx context.Context, u string, v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(string(b)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := m.httpClient(nil).Do(req)
	if err != nil {
		return fmt.Errorf("posting to %s: %w", redact(u), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e)
		if e.Error != "" {
			return fmt.Errorf("%s answered %s: %s", redact(u), sanitize.Line(e.Error), sanitize.Line(e.Description))
		}
		return fmt.Errorf("%s answered HTTP %d", redact(u), resp.StatusCode)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("reading the answer of %s: %w", redact(u), err)
	}
	return nil
}

// redact returns u without its query and user info, which may hold
// secrets, for messages and logs.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "an unreadable URL"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// tokenError turns an error from a token request into plain words, keeping
// the *oauth2.RetrieveError in the chain so callers can read its code.
func tokenError(what string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			msg := fmt.Sprintf("%s: the authorization server refused (%s", what, sanitize.Line(re.ErrorCode))
			if re.ErrorDescription != "" {
				msg += ": " + sanitize.Line(re.ErrorDescription)
			}
			return &wrapped{msg: msg + ")", err: err}
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return &wrapped{msg: fmt.Sprintf("%s: the authorization server answered HTTP %d", what, status), err: err}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// wrapped is an error with its own words that still unwraps to its cause
// (whose own message may hold a response body, so it is not repeated).
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// isInvalidGrant reports whether err is the authorization server saying the
// grant (refresh token, code) is no longer good.
func isInvalidGrant(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_grant"
}
