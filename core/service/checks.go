package service

import (
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// The checks a server must pass before mcptray writes it into its own
// config. They live here, once: Add makes them whoever asks (the window's
// paste, the catalogue, the command line), and front ends that want to
// say so before they ask call the same functions.

// MaxURL bounds a server's URL: longer ones are mistakes (a pasted page),
// and would fill every line that shows them.
const MaxURL = 2048

// CheckName refuses names a person could not type or read back, and the
// built-in server's.
func CheckName(name string) error { return checkName(name) }

// checkName refuses names a person could not type or read back.
func checkName(name string) error {
	switch {
	case name == "" || sanitize.Line(name) == "":
		return newError(Invalid, "the name is empty")
	case sanitize.Line(name) != name:
		return newError(Invalid, "the name %q has spaces at its ends, or invisible or control characters; choose a plain name", name)
	case name == builtinName:
		return newError(Invalid, "%q is the name of mcptray's own built-in server; choose another name", name)
	}
	return nil
}

// CheckURL refuses a URL that cannot be the address of a server mcptray
// adds, and returns the transport its scheme implies (HTTP or
// WebSocket).
func CheckURL(raw string) (Transport, error) {
	u, err := checkAddress(raw)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "http", "https":
		return HTTP, nil
	case "ws", "wss":
		return WebSocket, nil
	}
	return "", newError(Invalid, "%q is not a web address: use an https://, http://, wss:// or ws:// URL", sanitize.Line(raw))
}

// checkAddress refuses what cannot be a server's address whatever its
// scheme: too long, no host, a port out of range, or a user name or
// password, which would be kept in a config file in plain text.
func checkAddress(raw string) (*url.URL, error) {
	if len(raw) > MaxURL {
		return nil, newError(Invalid, "the URL is %d characters long; a server's address has at most %d", len(raw), MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, newError(Invalid, "%q is not a URL like https://example.com/mcp", sanitize.Line(raw))
	}
	if u.User != nil {
		return nil, newError(Invalid, "the URL holds a user name or password, which would be kept in config.json in plain text; "+
			"leave them out, and give the password as a header's secret or sign in instead")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, newError(Invalid, "port %s is not a port (use 1 to 65535)", sanitize.Line(p))
		}
	}
	return u, nil
}

// ParseEntry reads a server's entry as a config file writes it
// ({"command": …} or {"url": …}) under name, as Add would take it, and
// says what mcptray understood of it, without writing anything: the
// window shows it before the person adds it. Its errors are Add's.
func ParseEntry(name string, entry json.RawMessage) (Server, error) {
	if err := checkName(name); err != nil {
		return Server{}, err
	}
	sv, err := config.ParseServer(name, entry, config.Source{Scope: config.User, App: "mcptray"}, config.Vars{})
	if err != nil {
		return Server{}, newError(Invalid, "%s %v", sanitize.Line(name), err)
	}
	if sv.Transport.Remote() {
		if _, err := checkAddress(sv.URL); err != nil {
			return Server{}, err
		}
	}
	return Server{Name: sv.Name, ConfigName: sv.Name, Scope: sv.Scope, Transport: sv.Transport,
		Command: sv.Command, Args: sv.Args, Cwd: sv.Cwd, EnvNames: sv.EnvNames(), URL: sv.URL, HeaderNames: sv.HeaderNames()}, nil
}
