// Package oauth signs mcptray in to remote MCP servers that ask for it, as
// the MCP authorization spec (2025-06-18 and 2025-11-25) describes:
// protected resource metadata (RFC 9728), authorization server metadata
// (RFC 8414, OpenID), a client identity (pre-registered, a Client ID
// Metadata Document or Dynamic Client Registration, RFC 7591), the
// authorization code grant with PKCE S256 through the system browser and a
// loopback redirect (RFC 8252), resource indicators (RFC 8707) and the iss
// check (RFC 9207). It also refreshes tokens, one refresh at a time per
// server across every mcptray process, and runs the client-credentials,
// Cross-App Access and workload JWT bearer (RFC 7523) grants for configs
// that ask for them. Where the authorization server offers DPoP (RFC 9449)
// and the server says it takes DPoP-bound tokens (its protected resource
// metadata or a DPoP challenge), tokens are bound to a key per server,
// kept in the store with them; a server that refuses them all the same is
// remembered and signed in to with Bearer tokens.
//
// Sign-in is lazy: nothing happens until a server answers 401.
//
// Tokens and registered clients live only in the secret.Store it is given
// (the keychain). This package must never write a token, a code, a PKCE
// verifier or a client secret to a file, a log line or an error message,
// never open anything but an http(s) URL, and never go through a shell to
// open one. It imports no keychain and no GUI: front ends inject both.
package oauth
