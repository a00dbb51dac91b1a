package config

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"

	"github.com/tailscale/hujson"
)

// IdentityProvider is the person's identity provider for Cross-App Access,
// the "identityProvider" object of mcptray's own config file: signing in
// there once lets every server whose "oauth" block says "xaa": true sign
// in with no browser of its own.
type IdentityProvider struct {
	// Issuer is its issuer URL (https, or http on this computer).
	Issuer string `json:"issuer"`
	// ClientID is mcptray's client there, registered by an administrator;
	// ClientSecret is that client's secret, when it has one.
	ClientID     string   `json:"clientId"`
	ClientSecret string   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// CallbackPort is the loopback port registered there; 0 lets the
	// system pick one.
	CallbackPort int `json:"callbackPort,omitempty"`
}

// identityProvider reads the "identityProvider" object of mcptray's own
// config file.
func (d *document) identityProvider() (*IdentityProvider, *Problem) {
	v := member(d.root.Value.(*hujson.Object), "identityProvider")
	if v == nil {
		return nil, nil
	}
	var p IdentityProvider
	if err := json.Unmarshal(d.data[v.StartOffset:v.EndOffset], &p); err != nil {
		return nil, d.problem(v.StartOffset, "", `"identityProvider" must be an object with "issuer" and "clientId"`)
	}
	if err := p.check(); err != nil {
		return nil, d.problem(v.StartOffset, "", `"identityProvider": `+err.Error())
	}
	return &p, nil
}

func (p *IdentityProvider) check() error {
	u, err := url.Parse(p.Issuer)
	switch {
	case p.Issuer == "" || err != nil || u.Host == "":
		return fmt.Errorf("%q is not an issuer URL like https://login.example.com", p.Issuer)
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
		return fmt.Errorf("the issuer %q must use https", p.Issuer)
	case p.ClientID == "":
		return fmt.Errorf(`"clientId" is missing: ask your administrator for mcptray's client id`)
	case p.CallbackPort < 0 || p.CallbackPort > 65535:
		return fmt.Errorf(`"callbackPort" %d is not a port`, p.CallbackPort)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
