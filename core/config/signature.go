package config

import "encoding/json"

// Signature identifies a server by what it runs or where it connects, not by
// its name: `stdio:["command","arg1",…]` for a program, `url:https://…` for a
// remote server. Two configs with one signature are one server, whatever
// each calls it.
func Signature(s *Server) string {
	switch {
	case s.Transport == Stdio:
		b, _ := json.Marshal(append([]string{s.Command}, s.Args...)) // []string always marshals
		return "stdio:" + string(b)
	case s.Transport.Remote():
		return "url:" + s.URL
	default:
		return string(s.Transport) + ":" + s.Name
	}
}
