package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcptray/mcptray/core/transport"
)

// discovery is what mcptray learned about where and how to sign in to a
// server.
type discovery struct {
	serverURL string
	// resource is the RFC 8707 resource indicator sent on authorize and
	// token requests: the protected resource metadata's resource, else the
	// server's own URL.
	resource string
	prm      *resourceMetadata // nil for servers that predate RFC 9728
	issuer   string
	meta     serverMetadata
	// legacy is a 2025-03-26 server: no protected resource metadata, the
	// authorization server at the server's root.
	legacy bool
	// defaults means no metadata at all: the 2025-03-26 default endpoints.
	defaults bool
}

// ErrResourceMismatch says the server's protected resource metadata is for
// another server: signing in would hand a token meant for this server to
// another, or one for another server to this one.
var ErrResourceMismatch = errors.New("the server's sign-in metadata names another server")

// discover finds the server's authorization server and its metadata, in
// the order the MCP spec gives: the protected resource metadata (RFC 9728)
// at the challenge's resource_metadata, else at its well-known URLs (with
// the server's path, then at the root); then the authorization server's
// metadata at the RFC 8414 and OpenID Connect well-known URLs. A server
// with no protected resource metadata is a 2025-03-26 one: its
// authorization server is at its root, with the default endpoints there
// when that publishes no metadata.
func (m *Manager) discover(ctx context.Context, serverURL string, ch *transport.AuthError, st Settings) (*discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil || su.Host == "" {
		return nil, fmt.Errorf("the server's address %q is not a URL", redact(serverURL))
	}
	d := &discovery{serverURL: serverURL, resource: canonicalResource(su)}

	var prm resourceMetadata
	found, err := m.firstFound(ctx, "protected resource metadata", prmCandidates(su, ch), nil, &prm)
	if err != nil {
		return nil, err
	}
	if found {
		if prm.Resource != "" {
			if !resourceMatches(prm.Resource, su) {
				return nil, fmt.Errorf("%w: it is for %s, not %s; mcptray will not sign in", ErrResourceMismatch, redact(prm.Resource), redact(serverURL))
			}
			d.resource = prm.Resource
		}
		d.prm = &prm
		if len(prm.AuthorizationServers) == 0 && st.AuthServerMetadataURL == "" {
			return nil, errors.New("the server's sign-in metadata names no authorization server")
		}
		if len(prm.AuthorizationServers) > 0 {
			d.issuer = prm.AuthorizationServers[0]
		}
	} else {
		d.legacy = true
		d.issuer = (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	}

	var candidates []string
	if st.AuthServerMetadataURL != "" {
		candidates = []string{st.AuthServerMetadataURL}
	} else {
		iu, err := url.Parse(d.issuer)
		if err != nil || iu.Host == "" {
			return nil, fmt.Errorf("the authorization server's address %q is not a URL", redact(d.issuer))
		}
		candidates = asCandidates(iu)
	}
	found, err = m.firstFound(ctx, "authorization server metadata", candidates,
		func(u string) error { return checkEndpoint("metadata", u) }, &d.meta)
	if err != nil {
		return nil, err
	}
	switch {
	case !found && d.legacy:
		// 2025-03-26: no metadata at all means the default endpoints at
		// the server's root.
		d.defaults = true
		d.meta = serverMetadata{
			Issuer:                        d.issuer,
			AuthorizationEndpoint:         d.issuer + "/authorize",
			TokenEndpoint:                 d.issuer + "/token",
			RegistrationEndpoint:          d.issuer + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
	case !found:
		return nil, fmt.Errorf("the authorization server %s publishes no metadata (RFC 8414 or OpenID); its address can be given as oauth.authServerMetadataUrl in the server's config", redact(d.issuer))
	}
	if d.meta.Issuer == "" {
		d.meta.Issuer = d.issuer
	} else if !d.legacy && st.AuthServerMetadataURL == "" && !sameIssuer(d.meta.Issuer, d.issuer) {
		// RFC 8414 §3.3: metadata whose issuer is not the one it was
		// fetched for must not be used; it may be another server's,
		// served to send the sign-in there. (A 2025-03-26 server has no
		// issuer to compare: its authorization server is wherever its
		// root says. Metadata at an address the config gives is taken
		// as the person chose it.)
		return nil, fmt.Errorf("%w: it names %s, not %s; mcptray will not sign in", ErrIssuerMismatch, redact(d.meta.Issuer), redact(d.issuer))
	}
	return d, nil
}

// ErrIssuerMismatch says the authorization server's metadata names another
// issuer than the one it was fetched for.
var ErrIssuerMismatch = errors.New("the authorization server's metadata is for another issuer")

// sameIssuer compares issuer identifiers as RFC 8414 §3.3 asks: exactly,
// except for a trailing slash, which names the same URL.
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// prmCandidates lists where to look for the protected resource metadata:
// the challenge's resource_metadata, then the path form, then the root.
func prmCandidates(su *url.URL, ch *transport.AuthError) []string {
	var out []string
	if ch != nil && ch.ResourceMetadata != "" {
		if ru, err := su.Parse(ch.ResourceMetadata); err == nil && (ru.Scheme == "https" || ru.Scheme == "http") {
			out = append(out, ru.String())
		}
	}
	root := &url.URL{Scheme: su.Scheme, Host: su.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		withPath := *root
		withPath.Path += p
		out = append(out, withPath.String())
	}
	return append(out, root.String())
}

// asCandidates lists where to look for an authorization server's metadata,
// for an issuer with a path and without one.
func asCandidates(iu *url.URL) []string {
	base := url.URL{Scheme: iu.Scheme, Host: iu.Host}
	at := func(p string) string { b := base; b.Path = p; return b.String() }
	p := strings.TrimSuffix(iu.Path, "/")
	if p == "" {
		return []string{
			at("/.well-known/oauth-authorization-server"),
			at("/.well-known/openid-configuration"),
		}
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + p),
		at("/.well-known/openid-configuration" + p),
		at(p + "/.well-known/openid-configuration"),
	}
}

// canonicalResource is a server URL as RFC 8707 wants it: lower-case
// scheme and host, no fragment.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// resourceMatches reports whether the protected resource metadata's
// resource covers the server: the same origin, and a path that is the
// server's or one of its parents.
func resourceMatches(resource string, su *url.URL) bool {
	ru, err := url.Parse(resource)
	if err != nil {
		return false
	}
	if !strings.EqualFold(ru.Scheme, su.Scheme) || !strings.EqualFold(hostPort(ru), hostPort(su)) {
		return false
	}
	rp := strings.TrimSuffix(ru.Path, "/")
	sp := strings.TrimSuffix(su.Path, "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u.Hostname() + ":443"
	case "http":
		return u.Hostname() + ":80"
	}
	return u.Host
}

// firstFound fetches candidates in order into dst until one answers, and
// reports whether one did. A candidate that check refuses stops the search
// with that error; one that fails to answer is passed over.
func (m *Manager) firstFound(ctx context.Context, what string, candidates []string, check func(string) error, dst any) (bool, error) {
	for _, u := range candidates {
		if check != nil {
			if err := check(u); err != nil {
				return false, err
			}
		}
		ok, err := m.getJSON(ctx, u, dst)
		if err != nil {
			m.log.Debug(what, "url", redact(u), "err", err)
			continue
		}
		if ok {
			m.log.Debug(what+" found", "url", redact(u))
			return true, nil
		}
	}
	return false, nil
}
