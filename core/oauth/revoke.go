package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// ErrNotRevoked says a sign-out forgot the sign-in on this computer, but the
// authorization server did not confirm it revoked the tokens: they may stay
// good there until they expire.
var ErrNotRevoked = errors.New("signed out on this computer, but the authorization server did not confirm it revoked the sign-in")

// revocationURL is the metadata's revocation endpoint, or "" when it has
// none or one mcptray would not send a token to.
func (md *serverMetadata) revocationURL() string {
	if md.RevocationEndpoint == "" || checkEndpoint("revocation endpoint", md.RevocationEndpoint) != nil {
		return ""
	}
	return md.RevocationEndpoint
}

// revokeStored revokes the server's stored tokens (RFC 7009), the refresh
// token first, since revoking it ends the whole grant, then the access
// token. Nothing stored, or no revocation endpoint, is no error.
func (m *Manager) revokeStored(ctx context.Context, s *config.Server) error {
	tok, err := m.loadTokens(ctx, s)
	if err != nil || tok == nil {
		return nil // nothing to revoke that can be read
	}
	c, err := m.loadClient(ctx, s)
	if err != nil || c == nil || c.RevocationURL == "" {
		return nil
	}
	var errs []error
	if tok.RefreshToken != "" {
		if err := m.revoke(ctx, c, tok.RefreshToken, "refresh_token"); err != nil {
			errs = append(errs, fmt.Errorf("revoking the refresh token: %w", err))
		}
	}
	if err := m.revoke(ctx, c, tok.AccessToken, "access_token"); err != nil {
		errs = append(errs, fmt.Errorf("revoking the access token: %w", err))
	}
	return errors.Join(errs...)
}

// revoke asks the revocation endpoint to revoke token, authenticating as
// the client does at the token endpoint.
func (m *Manager) revoke(ctx context.Context, c *storedClient, token, hint string) error {
	if err := checkEndpoint("revocation endpoint", c.RevocationURL); err != nil {
		return err
	}
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	basic := false
	switch c.AuthMethod {
	case authSecretBasic:
		basic = true
	case authSecretPost:
		form.Set("client_id", c.ClientID)
		form.Set("client_secret", c.ClientSecret)
	case authPrivateKeyJWT:
		assertion, err := clientAssertion(c, time.Now())
		if err != nil {
			return err
		}
		form.Set("client_id", c.ClientID)
		form.Set("client_assertion_type", jwtBearerAssertion)
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", c.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.RevocationURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		// RFC 6749 §2.3.1: form-encoded before base64.
		req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
	}
	resp, err := m.httpClient(nil).Do(req)
	if err != nil {
		return fmt.Errorf("reaching %s: %w", redact(c.RevocationURL), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	// RFC 7009 §2.2: 200 for a revoked token, and for one already
	// unknown, which is as good.
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered HTTP %d", redact(c.RevocationURL), resp.StatusCode)
	}
	return nil
}
