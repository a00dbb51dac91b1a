// Package egress is the network door of mcptray's sandbox: an HTTP forward
// proxy on 127.0.0.1 through which every sandboxed stdio server reaches the
// network. Landlock lets a server connect by TCP to this proxy's port and
// nowhere else; the proxy lets each server reach the hosts on its list and
// asks the person about any other.
//
//	p := egress.New(egress.Options{Hosts: ..., Ask: endpoint.AskEgress, Remember: ...})
//	err := p.Start(ctx)          // listens on 127.0.0.1, a port of the system's choosing
//	env := p.Env("weather")      // the proxy variables for the server's process
//	...                          // start the server with env; Landlock allows p.Port()
//	p.Forget("weather")          // the server stopped: its credential no longer works
//	p.Close()
//
// # The proxy
//
// It is built on the standard library (net/http, httputil.ReverseProxy),
// not on elazarl/goproxy. What a sandbox needs is small: CONNECT tunnels for
// HTTPS, absolute-URI forwarding for plain HTTP, and a credential check;
// the standard library does each in a few lines, and the decision that
// holds a connection while the person is asked fits in the handler as
// plain code rather than in goproxy's handler chains. goproxy would bring a
// dependency whose strengths (rewriting requests, intercepting TLS) mcptray
// must never use: the proxy does not look inside HTTPS. On Linux a tunnel's
// bytes go from socket to socket with splice (io.Copy between two TCP
// connections), so a tunnel adds no copying; what a request pays is one
// round trip to the proxy for CONNECT and its dial (bench/: BenchmarkHTTPS).
//
// # Who is asking
//
// Each server gets its own credential in its proxy URL,
// http://SERVER:TOKEN@127.0.0.1:PORT. Clients send it as Proxy-Authorization
// (Basic); the token is compared in constant time, and a request without a
// known one gets 407. Env makes a new credential each time it is called, so
// a server's restart starts a new session: the answers "Allow once" and
// "Deny" of the session before are forgotten (its refusal records are
// kept).
//
// # What a server may reach
//
// Destinations are written as people write hosts: "api.weather.gov" (ports
// 443 and 80), "*.weather.gov" (any name under it, ports 443 and 80),
// "host:8443" (that port only). This computer and its local network are
// never reached through a name or wildcard: "localhost", an address of
// this machine, a private, link-local or loopback address, and a name the
// system's resolver answers with one of those, are allowed only by an exact
// "host:port" entry (the person's "Always" writes one; Declared never
// does), and otherwise asked about as "localhost:5432"; a name that turns
// out to point here is asked about again, as local, even when it was
// allowed as a name. The proxy's own port is refused outright.
//
// A server's list is Options.Hosts(server): what it declares (Declared: its
// registry entry and the package registry of its runtime) and what the
// person allowed. The first connection to any other destination waits while
// Options.Ask asks the person "Allow weather to reach api.weather.gov?":
// Allow once (until the server stops), Always (Options.Remember keeps it),
// or Deny. No answer within Options.AskTimeout (60 s), or no window to ask
// in (ErrNoWindow, as under mcptray serve), is a no. Connections to the same
// destination while the question is open share it; a server has at most
// three questions open at once, and a connection to a fourth host is
// refused until one is answered. A refused connection
// gets 403 with a body in plain words, a Refusal record (Refusals), and a
// log line with the command that allows it.
//
// # The flow guard
//
// While a server runs a call for an app session that has read the
// person's data and content someone else wrote (mcptray's flow guard,
// core/guard, says so through Options.Flow), its connection to a
// destination not on its list is asked about with the chain in words
// (Question.Chain): "Claude Code read ~/notes/tax.txt through files, then
// read https://example.com/issue/42 through fetch. It now wants to send
// data through weather (to api.weather.gov). Allow weather to reach
// api.weather.gov?". An Allow once given earlier without the chain does
// not let it through; a Deny given earlier stands; the answer given with
// the chain holds for that chain until the server stops. A destination on
// the list passes: the person allowed it for good, and mcptray's guard
// counts the server's tools as able to send data out because of it, so
// the call itself was asked about. With no window the connection is
// refused with the chain and the command that allows it; in the guard's
// block mode Ask says ErrGuardBlocks and it is refused without asking.
//
// # Names, and what is beyond the proxy
//
// The proxy resolves names itself, so servers need no DNS of their own,
// and only once a connection is allowed: a refused host is not even looked
// up. Landlock cannot
// restrict UDP, though: a server can still send UDP (DNS queries to any
// resolver included). The proxy closes the TCP door only.
//
// # Which programs honour the proxy variables
//
// Env sets HTTPS_PROXY, HTTP_PROXY and ALL_PROXY, each in upper and lower
// case, NO_PROXY and no_proxy empty (so that the person's own NO_PROXY,
// inherited from mcptray, does not send a server around the proxy), and
// NODE_USE_ENV_PROXY=1; and npm_config_proxy, npm_config_https_proxy and
// PIP_PROXY, which win over a proxy in the person's .npmrc or pip.conf.
//   - curl, Python's requests and httpx, pip, uv and uvx, and npm (hence
//     npx's installs) honour them.
//   - Go's net/http honours them, but never uses a proxy for localhost and
//     loopback addresses: a Go server's connections to this computer go
//     around the proxy, and Landlock refuses them.
//   - Node's own http, https and fetch honour them only with
//     NODE_USE_ENV_PROXY=1, from Node 22.21 and 24.5 (fetch from 24.0).
//     Node 20 ignores the variable: a Node 20 server's fetch and https
//     requests go straight out and Landlock refuses them. The undici
//     package's EnvHttpProxyAgent honours the variables on any Node, and
//     npm itself reads them, so installs work; the server's own requests
//     need a newer Node.
package egress
