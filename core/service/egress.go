package service

import (
	"context"
	"errors"
	"net"
	"runtime"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/service/netpolicy"
)

// The proxy through which sandboxed servers reach the network, and the
// network policy it asks (core/service/netpolicy), are made by
// core/instance beside the service (Options.Network, Options.Proxy): the
// proxy is a listener, and core/instance owns the listeners. The service
// gives the policy the config in use, its reload, its notices and the
// record as it is made (attachNetwork), and the proxy's port and
// credentials to the servers it starts.

// NeedsProxy says whether the sandboxed servers of a service made with o
// reach the network through mcptray's egress proxy, which core/instance
// then makes with its network policy: they do where servers start
// through a launcher, but not on Windows, nor when Egress (or
// Conn.Egress) stands in for the proxy.
func (o *Options) NeedsProxy() bool {
	if o.Egress != nil || o.Conn.Egress != nil || runtime.GOOS == "windows" {
		return false
	}
	return o.Launcher != "" || o.Conn.Launcher != ""
}

// attachNetwork gives the network policy what it needs of the service;
// without one given, the service makes its own, which no proxy asks.
func (s *Service) attachNetwork() {
	s.net = s.opts.Network
	if s.net == nil {
		s.net = netpolicy.New(netpolicy.Options{Logger: s.log, UserFile: s.opts.Paths.UserFile()})
	}
	s.egress = s.opts.Proxy
	s.flows.policy = s.net
	s.net.Attach(netpolicy.Service{
		Current: s.current,
		Reload:  func() { s.reload() },
		Changed: func() { s.notices.Publish(struct{}{}) },
		Record: func(ctx context.Context, by string, action activity.TrustAction, target, detail string) {
			if by != "" {
				ctx = DecidedBy(ctx, by)
			}
			s.recordTrustBy(ctx, action, target, detail)
		},
	})
}

// wantsEgress says whether the service's sandboxed servers need its proxy
// (NeedsProxy).
func (s *Service) wantsEgress() bool { return s.opts.NeedsProxy() }

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

// egressRefusals are the connections the proxy refused a server lately.
func (s *Service) egressRefusals(server string) []egress.Refusal {
	if s.egress == nil {
		return nil
	}
	return s.egress.Refusals(server)
}

// partError gives a change the network policy refused its code.
func partError(err error) error {
	var pe *netpolicy.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.NotAllowed:
		return newError(NotAllowed, "%s", pe.Msg)
	case errors.As(err, &pe):
		return newError(Invalid, "%s", pe.Msg)
	}
	return wrapError(err)
}
