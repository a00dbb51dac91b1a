package oauth

import (
	"context"
	"errors"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/transport"
)

// signInJWTBearer signs in with the workload's own JWT (workload identity
// federation): the authorization server takes it as an RFC 7523 JWT bearer
// grant. The JWT is kept with the client and presented again for each new
// token; once it has expired, a new one has to be given. A refusal is said
// as it is: mcptray neither asks again nor falls back to another grant.
func (m *Manager) signInJWTBearer(ctx context.Context, s *config.Server, d *discovery, st Settings, ch *transport.AuthError) error {
	if err := d.meta.checkEndpoints(false); err != nil {
		return &SignInError{Reason: err.Error()}
	}
	if st.Assertion == "" {
		return errors.New("the JWT bearer sign-in needs the workload's token (a JWT)")
	}
	c := &storedClient{
		ClientID: st.ClientID, ClientSecret: st.ClientSecret, Source: sourceConfig, Grant: JWTBearer,
		Issuer: d.meta.Issuer, TokenURL: d.meta.TokenEndpoint, Resource: d.resource,
		Scopes:        chooseScopes(st.Scopes, ch, d, nil),
		RevocationURL: d.meta.revocationURL(),
		Assertion:     st.Assertion,
	}
	m.chooseDPoP(ctx, s, d, ch, c)
	c.AuthMethod = chooseAuthMethod(d.meta.TokenEndpointAuthMethodsSupported, c.ClientSecret != "")
	tok, err := m.jwtBearerToken(ctx, s, c, c.Assertion, "presenting the workload's token")
	if err != nil {
		return err
	}
	if err := m.saveClient(ctx, s, c); err != nil {
		return err
	}
	return m.saveTokens(ctx, s, tok)
}
