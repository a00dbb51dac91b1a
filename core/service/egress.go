package service

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"slices"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
)

// newEgress makes the service's egress proxy, through which its sandboxed
// servers reach the network, when it runs servers in sandboxes (a
// launcher, not Windows) and no Options.Egress replaces it. Start starts
// it before the first server, Close closes it after the last.
func (s *Service) newEgress() *egress.Proxy {
	if s.opts.Egress != nil || s.opts.Conn.Egress != nil || runtime.GOOS == "windows" {
		return nil
	}
	if s.opts.Launcher == "" && s.opts.Conn.Launcher == "" {
		return nil
	}
	return egress.New(egress.Options{
		Logger:   s.log,
		Hosts:    s.egressHosts,
		Ask:      s.askEgress, // a look's connections are refused unasked (look.go)
		Remember: s.rememberHost,
		// The server's detail lists its refusals.
		OnRefusal: func(egress.Refusal) { s.notices.Publish(struct{}{}) },
	})
}

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

// closeEgress closes the proxy, once every server is gone.
func (s *Service) closeEgress() error {
	if s.egress == nil {
		return nil
	}
	if err := s.egress.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
