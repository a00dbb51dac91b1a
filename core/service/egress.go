package service

import (
	"context"
	"net"
	"runtime"
	"slices"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
)

// EgressOptions are what the proxy through which sandboxed servers reach
// the network needs from the service: which hosts each server may reach,
// whom to ask about another, where to keep an "Always". ok is false when
// the service needs no proxy: it runs servers without sandboxes (no
// launcher, or Windows), or Options.Egress stands in for one.
//
// The proxy is a listener, and core/instance owns the listeners: it makes
// the proxy with these, hands it over with UseEgress before Start, starts
// it before Start and closes it after Close.
func (s *Service) EgressOptions() (o egress.Options, ok bool) {
	if !s.wantsEgress() {
		return egress.Options{}, false
	}
	return egress.Options{
		Logger:   s.log,
		Hosts:    s.egressHosts,
		Ask:      s.askEgress, // a look's connections are refused unasked (look.go)
		Remember: s.rememberHost,
		// A call of a session that read private data and untrusted
		// content: its server's new hosts are asked with the chain.
		Flow: s.egressFlow,
		// The server's detail lists its refusals.
		OnRefusal: func(egress.Refusal) { s.notices.Publish(struct{}{}) },
	}, true
}

// UseEgress gives the service the proxy made with EgressOptions. Call it
// before Start, once.
func (s *Service) UseEgress(p *egress.Proxy) { s.egress = p }

// wantsEgress says whether the service's sandboxed servers need its proxy
// (EgressOptions).
func (s *Service) wantsEgress() bool {
	if s.opts.Egress != nil || s.opts.Conn.Egress != nil || runtime.GOOS == "windows" {
		return false
	}
	return s.opts.Launcher != "" || s.opts.Conn.Launcher != ""
}

// egressServe is conn.Options.EgressServe with the service's proxy.
func (s *Service) egressServe(ln net.Listener) { s.egress.Serve(ln) }

// egressFor is conn.Options.Egress with the service's proxy: its port, and
// a new credential in the variables for the server's process. Only a
// server's start may call it: a new credential ends the one before.
func (s *Service) egressFor(server string) (int, map[string]string) {
	return s.egress.Port(), s.egress.Env(server)
}

// egressPort is conn.Options.Egress for what a server may do in words: the
// port, and no credential (minting one would end the running server's).
func (s *Service) egressPort(string) (int, map[string]string) {
	if s.egress != nil {
		return s.egress.Port(), nil
	}
	if f := s.sandboxOpts().Egress; f != nil {
		port, _ := f("")
		return port, nil
	}
	return 0, nil
}

// egressHosts is a server's list for the proxy: what it declares (the
// package registry its runtime installs from) and the hosts the person
// and its own entry allowed. The proxy calls it for every new connection.
func (s *Service) egressHosts(server string) []string {
	if hosts, ok := s.lookHosts(server); ok {
		return hosts
	}
	set := s.current()
	if set == nil {
		return nil
	}
	i := slices.IndexFunc(set.Servers, func(e config.Entry) bool { return e.Name == server })
	if i < 0 {
		return nil
	}
	e := &set.Servers[i]
	return slices.Concat(egress.Declared(e.Command, e.Args, nil), e.Sandbox.Hosts)
}

// rememberHost keeps the person's "Always": the host goes into the
// server's sandbox settings in mcptray's config file, which the proxy
// reads at the server's next connection (no restart: see config.Diff).
func (s *Service) rememberHost(server, dest, by string) error {
	err := config.ModifySandbox(s.opts.Paths.UserFile(), server, func(st *sandbox.Settings) {
		st.Hosts = edit(st.Hosts, dest, true)
	})
	if err != nil {
		return err
	}
	s.recordTrustBy(DecidedBy(context.Background(), by), activity.SandboxAllowance, server, "reach "+dest)
	s.reload()
	return nil
}

// egressRefusals are the connections the proxy refused a server lately.
func (s *Service) egressRefusals(server string) []egress.Refusal {
	if s.egress == nil {
		return nil
	}
	return s.egress.Refusals(server)
}
