package conn

import (
	"errors"

	"github.com/mcptray/mcptray/core/transport"
)

// AuthChallenge returns the 401 or 403 challenge that last moved server to
// needs-auth, where a sign-in starts its discovery (resource_metadata,
// scope). ok is false when the server has not asked for a sign-in or the
// error held no challenge.
func (m *Manager) AuthChallenge(name string) (challenge *transport.AuthError, ok bool) {
	c, err := m.conn(name)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authErr, c.authErr != nil
}

// noteAuth keeps the challenge of an auth error for AuthChallenge.
func (c *serverConn) noteAuth(err error) {
	var ae *transport.AuthError
	if !errors.As(err, &ae) {
		ae = nil
	}
	c.mu.Lock()
	c.authErr = ae
	c.mu.Unlock()
}
