// Package secret is the contract for where mcptray keeps secrets: OAuth
// tokens, registered OAuth clients and servers' secret variables and
// headers. core defines it; keychain/
// implements it on the operating system's keychain.
//
// There is no implementation that writes a file, and there must never be
// one: when no keychain is available, the person is told so plainly.
package secret

import (
	"context"
	"errors"
)

// ErrNotFound says that no secret is stored under a key.
var ErrNotFound = errors.New("no such secret")

// Kind is what a secret is for.
type Kind string

const (
	// Tokens are a server's OAuth access and refresh tokens.
	Tokens Kind = "tokens"
	// Client is the OAuth client mcptray registered with a server's
	// authorization server.
	Client Kind = "client"
	// IdPTokens are the person's sign-in at their identity provider, which
	// Cross-App Access exchanges for servers' tokens.
	IdPTokens Kind = "idp-tokens"
	// GatewayToken is the bearer token that apps send to the gateway's
	// HTTP face, kept under the Server key GatewayServer.
	GatewayToken Kind = "gateway-token"
	// DPoPKey is the private key a server's tokens are bound to (DPoP,
	// RFC 9449), as PKCS#8 PEM: without it those tokens are of no use.
	DPoPKey Kind = "dpop-key"
)

// GatewayServer is the Key.Server under which the gateway's token is kept:
// it belongs to mcptray itself, not to one of the person's servers.
const GatewayServer = "gateway"

// Var is the Kind of a server's secret variable or header kept under
// name (letters, digits and _): the value its config refers to as
// ${secret:NAME}. Unlike the kinds above, these are per server and per
// name, so the keychain cannot know them in advance: whoever removes the
// server removes them (core/service does).
func Var(name string) Kind { return Kind("var:" + name) }

// Key names one secret: one kind, for one server. Server is a stable id of
// the server (a hash of its signature), never a token or a URL with
// credentials in it.
type Key struct {
	Server string
	Kind   Kind
}

// Store keeps secrets. Implementations must be safe for concurrent use.
type Store interface {
	// Get returns the secret under key, or ErrNotFound.
	Get(ctx context.Context, key Key) ([]byte, error)
	// Set stores value under key, replacing any earlier one.
	Set(ctx context.Context, key Key, value []byte) error
	// Delete removes the secret under key; deleting a missing one is not
	// an error.
	Delete(ctx context.Context, key Key) error
}

// UnavailableError says that no keychain can be used, with what to do
// about it in plain words.
type UnavailableError struct {
	Reason string // e.g. "no Secret Service is running"
	Fix    string // e.g. "install gnome-keyring, or unlock your keyring"
	Err    error
}

func (e *UnavailableError) Error() string {
	msg := "cannot reach your keychain: " + e.Reason
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// IsUnavailable reports whether err says that no keychain can be used.
func IsUnavailable(err error) bool {
	var u *UnavailableError
	return errors.As(err, &u)
}
