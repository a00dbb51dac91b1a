package oauth

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// resourceMetadata is an OAuth 2.0 Protected Resource Metadata document
// (RFC 9728 §2).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
	// DPoPSigningAlgValuesSupported are the algorithms the resource takes
	// DPoP proofs in, and DPoPBoundAccessTokensRequired says it takes only
	// DPoP-bound tokens (RFC 9728 §2).
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required"`
}

// serverMetadata is an OAuth 2.0 Authorization Server Metadata document
// (RFC 8414 §2), or the OpenID Connect Discovery one, which shares its
// fields.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseISSSupported bool     `json:"authorization_response_iss_parameter_supported"`
	// DPoPSigningAlgValuesSupported are the algorithms the server takes
	// DPoP proofs in (RFC 9449 §5.1); none means it does not bind tokens.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
}

// supportsS256 reports whether the server says it takes PKCE S256. The MCP
// spec requires refusing a server whose metadata does not say so.
func (md *serverMetadata) supportsS256() bool {
	return slices.Contains(md.CodeChallengeMethodsSupported, "S256")
}

// checkEndpoints refuses endpoints mcptray must not use: anything but
// https, or http to this computer.
func (md *serverMetadata) checkEndpoints(needAuthorize bool) error {
	if needAuthorize {
		if err := checkEndpoint("authorization endpoint", md.AuthorizationEndpoint); err != nil {
			return err
		}
	}
	if err := checkEndpoint("token endpoint", md.TokenEndpoint); err != nil {
		return err
	}
	if md.RegistrationEndpoint != "" {
		if err := checkEndpoint("registration endpoint", md.RegistrationEndpoint); err != nil {
			return err
		}
	}
	return nil
}

// checkEndpoint accepts https URLs, and http ones only to a loopback host
// (a server on this computer, as in development).
func checkEndpoint(what, raw string) error {
	if raw == "" {
		return fmt.Errorf("the authorization server gives no %s", what)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("the authorization server's %s is not a web address", what)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("the authorization server's %s (%s) is not encrypted (http:); mcptray only signs in over https", what, redact(raw))
	}
	return fmt.Errorf("the authorization server's %s is a %q address; mcptray only signs in over https", what, u.Scheme)
}

// isLoopbackHost reports whether host names this computer.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
