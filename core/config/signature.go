package config

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
)

// Signature identifies a server by what it runs or where it connects, not by
// its name: `stdio:["command","arg1",…]` for a program, `url:https://…` for a
// remote server. Two configs with one signature are one server, whatever
// each calls it.
//
// A URL is compared as a server sees it (normalURL): https://Example.com/mcp/
// and https://example.com:443/mcp are one server. The stdio signature is the
// command and arguments exactly as written.
func Signature(s *Server) string {
	switch {
	case s.Transport == Stdio:
		// As JavaScript's JSON.stringify writes it: no HTML escaping of
		// <, > and &, so that signatures compare equal across apps.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(append([]string{s.Command}, s.Args...)) // []string always encodes
		return "stdio:" + strings.TrimSuffix(b.String(), "\n")
	case s.Transport.Remote():
		return "url:" + normalURL(s.URL)
	default:
		return string(s.Transport) + ":" + s.Name
	}
}

// defaultPorts are the ports a URL's scheme implies.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// normalURL writes raw so that URLs that reach the same server compare
// equal: scheme and host in lower case (neither is case-sensitive), no port
// the scheme implies, no trailing slash on the path. The rest (path case,
// query) is the server's to interpret and stays as written. A URL that does
// not parse stays as it is.
func normalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == defaultPorts[u.Scheme] {
		port = ""
	}
	switch {
	case port != "":
		u.Host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"): // IPv6
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String()
}
