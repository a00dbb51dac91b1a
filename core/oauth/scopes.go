package oauth

import (
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/transport"
)

// offlineAccess asks for a refresh token (OpenID Connect, SEP-2207).
const offlineAccess = "offline_access"

// chooseScopes picks the scopes to ask for, in the spec's order: the
// config's; else the 401 challenge's; else the protected resource's
// scopes_supported; else none. A step-up (403 insufficient_scope) keeps
// what was granted before and adds what the challenge asks for.
// offline_access is added when the authorization server offers it, so the
// sign-in lasts.
func chooseScopes(config []string, ch *transport.AuthError, d *discovery, granted []string) []string {
	var out []string
	switch {
	case len(config) > 0:
		out = slices.Clone(config)
	case ch != nil && ch.Scope != "":
		out = strings.Fields(ch.Scope)
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		out = slices.Clone(d.prm.ScopesSupported)
	}
	if ch != nil && ch.ErrorCode == "insufficient_scope" {
		out = union(granted, out)
	}
	if len(out) > 0 && slices.Contains(d.meta.ScopesSupported, offlineAccess) && !slices.Contains(out, offlineAccess) {
		out = append(out, offlineAccess)
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
