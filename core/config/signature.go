package config

import (
	"encoding/json"
	"strings"
)

// Signature identifies a server by what it runs or where it connects, not by
// its name: `stdio:["command","arg1",…]` for a program, `url:https://…` for a
// remote server. Two configs with one signature are one server, whatever
// each calls it.
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
		return "url:" + s.URL
	default:
		return string(s.Transport) + ":" + s.Name
	}
}
