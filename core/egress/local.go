package egress

import (
	"net"
	"net/netip"
	"os"
	"strings"
)

// machine is what names and addresses mean this computer: its host name
// and the addresses of its network interfaces, read when the proxy starts.
type machine struct {
	hostname string
	addrs    map[netip.Addr]bool
}

func thisMachine() machine {
	m := machine{addrs: map[netip.Addr]bool{}}
	if h, err := os.Hostname(); err == nil {
		m.hostname = strings.TrimSuffix(strings.ToLower(h), ".")
	}
	if as, err := net.InterfaceAddrs(); err == nil {
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok {
					m.addrs[ip.Unmap()] = true
				}
			}
		}
	}
	return m
}

// localName says whether host, as written, is this computer or its local
// network: localhost and names under it, this machine's name, and the
// addresses localAddr says are local.
func (m machine) localName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || (m.hostname != "" && host == m.hostname) {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return m.localAddr(a)
	}
	return false
}

// sharedSpace is the carrier-grade NAT range (RFC 6598), where VPNs such as
// Tailscale put the person's other machines.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// localAddr says whether a is this computer or its local network: a
// loopback, private, shared (100.64/10), link-local (the cloud's metadata
// service at 169.254.169.254 included) or unspecified address, or one of
// this machine's own.
func (m machine) localAddr(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsInterfaceLocalMulticast() || sharedSpace.Contains(a) || m.addrs[a]
}

// listenAddr is the one address the proxy listens on.
var listenAddr = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// ownAddr says whether a connection to a, at the proxy's port, reaches the
// proxy: a is the address it listens on, or the unspecified address, which
// the system connects to this computer. Another address of this computer
// at that port is another program's (ports are per address).
func ownAddr(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	return a == listenAddr || a.IsUnspecified()
}

// ownHost is ownAddr for a destination's host as written: an address, or
// localhost. Another name is known only once it is resolved.
func ownHost(host string) bool {
	if a, err := netip.ParseAddr(host); err == nil {
		return ownAddr(a)
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
