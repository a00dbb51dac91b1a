package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"golang.org/x/oauth2"

	"github.com/mcptray/mcptray/core/config"
)

// Token endpoint authentication methods (RFC 7591 §2).
const (
	authNone          = "none"
	authSecretBasic   = "client_secret_basic"
	authSecretPost    = "client_secret_post"
	authPrivateKeyJWT = "private_key_jwt"
)

// Where a client identity came from.
const (
	sourceConfig     = "config"
	sourceMetadata   = "metadata document"
	sourceRegistered = "registered"
)

// storedClient is mcptray's identity at one server's authorization server,
// kept in the store under secret.Client. It holds what a refresh or a new
// client-credentials token needs.
type storedClient struct {
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	AuthMethod   string   `json:"auth_method,omitempty"`
	Source       string   `json:"source"`
	Issuer       string   `json:"issuer,omitempty"`
	TokenURL     string   `json:"token_url,omitempty"`
	RedirectURI  string   `json:"redirect_uri,omitempty"`
	Resource     string   `json:"resource,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// RevocationURL is the authorization server's RFC 7009 revocation
	// endpoint, where sign-out revokes the tokens; empty when it has none.
	RevocationURL string `json:"revocation_url,omitempty"`

	Grant         Grant  `json:"grant,omitempty"`
	PrivateKeyPEM string `json:"private_key_pem,omitempty"`
	SigningAlg    string `json:"signing_alg,omitempty"`
	IdPTokenURL   string `json:"idp_token_url,omitempty"`
	IdPClientID   string `json:"idp_client_id,omitempty"`
	IdPIDToken    string `json:"idp_id_token,omitempty"`
	// IdPIssuer is set when the ID token comes from the identity provider
	// sign-in (Options.IdP) rather than IdPIDToken: each exchange takes
	// its current ID token, renewed as needed.
	IdPIssuer string `json:"idp_issuer,omitempty"`
	// Assertion is the workload's JWT of the JWT bearer grant, presented
	// again for each new token.
	Assertion string `json:"assertion,omitempty"`
	// DPoP says the authorization server binds tokens to mcptray's key
	// (RFC 9449): every token request carries a proof.
	DPoP bool `json:"dpop,omitempty"`
	// DPoPRefused says the server refused a token bound to mcptray's key
	// although its metadata offered DPoP: mcptray signs in to it without
	// DPoP from then on. It is not a secret; it is kept here, with the
	// rest of what mcptray learned about signing in to the server, and
	// carried to each new client record of the server (chooseDPoP).
	DPoPRefused bool `json:"dpop_refused,omitempty"`
}

// authStyle is how golang.org/x/oauth2 should present the client.
func (c *storedClient) authStyle() oauth2.AuthStyle {
	if c.AuthMethod == authSecretBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// secret is the client secret to send: none for public clients.
func (c *storedClient) secret() string {
	if c.AuthMethod == authNone || c.AuthMethod == authPrivateKeyJWT {
		return ""
	}
	return c.ClientSecret
}

func (m *Manager) loadClient(ctx context.Context, s *config.Server) (*storedClient, error) {
	return loadJSON[storedClient](ctx, m.opts.Store, clientKey(s))
}

func (m *Manager) saveClient(ctx context.Context, s *config.Server, c *storedClient) error {
	return storeJSON(ctx, m.opts.Store, clientKey(s), c, "the registered client")
}

// resolveClient finds mcptray's identity for this sign-in, in the spec's
// order: a pre-registered client from the config; a Client ID Metadata
// Document when the server supports them; the client registered earlier;
// Dynamic Client Registration.
func (m *Manager) resolveClient(ctx context.Context, s *config.Server, d *discovery, st Settings, redirectURI string) (*storedClient, error) {
	if st.ClientID != "" {
		c := &storedClient{ClientID: st.ClientID, ClientSecret: st.ClientSecret, Source: sourceConfig}
		c.AuthMethod = chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, c.ClientSecret != "")
		return c, nil
	}
	if d.meta.ClientIDMetadataDocumentSupported && m.opts.ClientMetadataURL != "" {
		return &storedClient{ClientID: m.opts.ClientMetadataURL, AuthMethod: authNone, Source: sourceMetadata}, nil
	}
	if old, err := m.loadClient(ctx, s); err == nil && old != nil && old.Source == sourceRegistered &&
		old.Issuer == d.meta.Issuer && old.RedirectURI == redirectURI {
		return old, nil
	}
	if d.meta.RegistrationEndpoint == "" {
		return nil, errors.New("the authorization server does not let mcptray register itself; give the client id it issued you as oauth.clientId in the server's config (or `mcptray login --client-id`)")
	}
	return m.register(ctx, d, redirectURI)
}

// applicationNative is the OpenID Connect registration application_type
// of a client that runs on the person's computer and is redirected to a
// loopback address (SEP-837): what mcptray is.
const applicationNative = "native"

// register runs Dynamic Client Registration (RFC 7591).
func (m *Manager) register(ctx context.Context, d *discovery, redirectURI string) (*storedClient, error) {
	method := chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, false)
	req := map[string]any{
		"client_name":                ClientName,
		"application_type":           applicationNative,
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	}
	var resp struct {
		ClientID     string   `json:"client_id"`
		ClientSecret string   `json:"client_secret"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := m.postJSON(ctx, d.meta.RegistrationEndpoint, req, &resp); err != nil {
		// Most servers that refuse to register a new client want one an
		// administrator registered: say where its id goes.
		return nil, fmt.Errorf("the authorization server would not register mcptray as a new app (%w); "+
			"it may need a client id from its administrator, set as \"oauth\": {\"clientId\": …} in the server's config", err)
	}
	if resp.ClientID == "" {
		return nil, errors.New("registering mcptray with the authorization server: it gave no client id")
	}
	for _, r := range resp.RedirectURIs {
		if !isLoopbackRedirect(r) {
			return nil, &SignInError{Reason: fmt.Sprintf("the authorization server registered a redirect to %s, not to this computer", redact(r))}
		}
	}
	c := &storedClient{
		ClientID: resp.ClientID, ClientSecret: resp.ClientSecret, AuthMethod: resp.AuthMethod,
		Source: sourceRegistered, Issuer: d.meta.Issuer, RedirectURI: redirectURI,
	}
	if c.AuthMethod == "" {
		if c.ClientSecret != "" {
			c.AuthMethod = chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, true)
		} else {
			c.AuthMethod = authNone
		}
	}
	m.log.Debug("registered with the authorization server", "issuer", redact(d.meta.Issuer), "auth_method", c.AuthMethod)
	return c, nil
}

// chooseAuthMethod picks how to authenticate at the token endpoint from
// what the server supports: a public client asks for none when it can; a
// client with a secret prefers client_secret_basic, RFC 8414's default.
func chooseAuthMethod(supported []string, hasSecret bool) string {
	if !hasSecret && (len(supported) == 0 || slices.Contains(supported, authNone)) {
		return authNone
	}
	switch {
	case len(supported) == 0, slices.Contains(supported, authSecretBasic):
		return authSecretBasic
	case slices.Contains(supported, authSecretPost):
		return authSecretPost
	case slices.Contains(supported, authNone):
		return authNone
	}
	return authSecretBasic
}

// isLoopbackRedirect reports whether a redirect URI comes back to this
// computer.
func isLoopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "http" && isLoopbackHost(u.Hostname())
}
