package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// dest is where a connection goes: a host (a lowercased name without its
// trailing dot, or an IP address) and a port.
type dest struct {
	host string
	port int
	// local says that host is this computer or its local network: it is
	// reached only by an exact host:port entry.
	local bool
}

// key is the destination as a list entry and the question write it: the
// host alone for the web's ports (443, 80) and for nothing local, else
// host:port.
func (d dest) key() string {
	if d.local || (d.port != 443 && d.port != 80) {
		return net.JoinHostPort(d.host, strconv.Itoa(d.port))
	}
	return d.host
}

// parseDest reads a request's target, "host:port", with defaultPort for
// a target without one.
func parseDest(target string, defaultPort int) (dest, error) {
	host, portText, err := net.SplitHostPort(target)
	if err != nil {
		var ae *net.AddrError
		if !errors.As(err, &ae) || !strings.Contains(ae.Err, "missing port") {
			return dest{}, fmt.Errorf("%q is not a host and port", target)
		}
		host, portText = strings.TrimSuffix(strings.TrimPrefix(target, "["), "]"), strconv.Itoa(defaultPort)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return dest{}, fmt.Errorf("%q has no valid port", target)
	}
	host, err = normalHost(host)
	if err != nil {
		return dest{}, err
	}
	return dest{host: host, port: port}, nil
}

// NormalHost is a destination as a list keeps it: "api.example.com",
// "*.example.com", "localhost:5432", "[::1]:8080", lowercased, without a
// name's trailing dot; or an error in plain words for anything else. The
// command line and config should keep hosts in this form.
func NormalHost(s string) (string, error) {
	s = strings.TrimSpace(s)
	host, port := s, 0
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q has no valid port: a port is a number from 1 to 65535", s)
		}
		host, port = h, n
	}
	wild := strings.HasPrefix(host, "*.")
	h, err := normalHost(strings.TrimPrefix(host, "*."))
	if err != nil {
		return "", err
	}
	if wild {
		if _, err := netip.ParseAddr(h); err == nil || !strings.Contains(h, ".") {
			return "", fmt.Errorf("%q: a * stands for the names under a domain, as in *.example.com", s)
		}
		h = "*." + h
	}
	if port != 0 {
		return net.JoinHostPort(h, strconv.Itoa(port)), nil
	}
	return h, nil
}

// normalHost checks a host name or address and writes it in one form.
func normalHost(h string) (string, error) {
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return a.WithZone("").String(), nil
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || len(h) > 253 {
		return "", fmt.Errorf("%q is not a host name", h)
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("%q is not a host name", h)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return "", fmt.Errorf("%q is not a host name: it may hold letters, digits, - and . only", h)
			}
		}
	}
	return h, nil
}

// allows says whether a list of destinations (NormalHost's forms) lets a
// connection to d through. A name or wildcard covers ports 443 and 80 of
// what is not local; a local destination needs its exact host:port.
func allows(list []string, d dest) bool {
	for _, e := range list {
		host, port := e, 0
		if h, p, err := net.SplitHostPort(e); err == nil {
			host = h
			port, _ = strconv.Atoi(p)
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if port == 0 {
			if d.local || (d.port != 443 && d.port != 80) {
				continue
			}
		} else if port != d.port {
			continue
		}
		if suffix, wild := strings.CutPrefix(host, "*."); wild {
			if !d.local && strings.HasSuffix(d.host, "."+suffix) {
				return true
			}
			continue
		}
		if a, err := netip.ParseAddr(host); err == nil {
			host = a.WithZone("").String()
		}
		if host == d.host {
			return true
		}
	}
	return false
}
