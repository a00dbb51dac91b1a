package config

import (
	"strings"
	"testing"
)

// TestLoadIdentityProvider: the identity provider comes from mcptray's own
// config; one that cannot be used is a problem in plain words, and the
// servers still load.
func TestLoadIdentityProvider(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, idp, wantProblem string
		want                   *IdentityProvider
	}{
		{"https", `{"issuer": "https://login.example.com", "clientId": "mcptray", "scopes": ["openid"]}`, "",
			&IdentityProvider{Issuer: "https://login.example.com", ClientID: "mcptray", Scopes: []string{"openid"}}},
		{"http on this computer", `{"issuer": "http://127.0.0.1:8080", "clientId": "mcptray"}`, "",
			&IdentityProvider{Issuer: "http://127.0.0.1:8080", ClientID: "mcptray"}},
		{"http elsewhere", `{"issuer": "http://login.example.com", "clientId": "mcptray"}`, "must use https", nil},
		{"no client id", `{"issuer": "https://login.example.com"}`, `"clientId" is missing`, nil},
		{"not an object", `"https://login.example.com"`, `must be an object`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newTestHome(t)
			writeFile(t, h.paths.UserFile(), `{"identityProvider": `+tt.idp+`, "mcpServers": {"a": {"command": "a"}}}`)
			set := h.loader(nil).Load()
			if len(set.Servers) != 1 {
				t.Errorf("%d servers loaded, want 1", len(set.Servers))
			}
			if tt.wantProblem != "" {
				if set.IdentityProvider != nil || len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Message, tt.wantProblem) {
					t.Errorf("identity provider %+v, problems %+v; want none and a problem saying %q", set.IdentityProvider, set.Problems, tt.wantProblem)
				}
				return
			}
			if len(set.Problems) != 0 || set.IdentityProvider == nil || set.IdentityProvider.Issuer != tt.want.Issuer ||
				set.IdentityProvider.ClientID != tt.want.ClientID || strings.Join(set.IdentityProvider.Scopes, " ") != strings.Join(tt.want.Scopes, " ") {
				t.Errorf("identity provider %+v, problems %+v; want %+v", set.IdentityProvider, set.Problems, tt.want)
			}
		})
	}
}
