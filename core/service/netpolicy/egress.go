package netpolicy

import (
	"context"
	"slices"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/sandbox"
)

// hosts is a server's list for the proxy: what it declares (the package
// registry its runtime installs from) and the hosts the person and its own
// entry allowed. The proxy calls it for every new connection.
func (p *Policy) hosts(server string) []string {
	if hosts, ok := p.lookHosts(server); ok {
		return hosts
	}
	if name, ok := p.trials.server(server); ok {
		server = name // a trial reaches what its server may (trials.go)
	}
	set := p.current()
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
func (p *Policy) rememberHost(server, dest, by string) error {
	err := config.ModifySandbox(p.opts.UserFile, server, func(st *sandbox.Settings) {
		st.Hosts = edit(st.Hosts, dest, true)
	})
	if err != nil {
		return err
	}
	p.record(context.Background(), by, activity.SandboxAllowance, server, "reach "+dest)
	p.reload()
	return nil
}

// ask asks the person about a server's connection, but for a look's or a
// trial's: that is refused without a question.
func (p *Policy) ask(ctx context.Context, q egress.Question) (egress.Reply, error) {
	if _, trial := p.trials.server(q.Server); trial {
		return egress.Reply{Answer: egress.Deny}, errTrialNotAsked{}
	}
	if p.looks.isLook(q.Server) {
		return egress.Reply{Answer: egress.Deny}, egress.ErrNotAsked
	}
	if q.Chain != "" {
		return p.askFlow(ctx, q)
	}
	if p.opts.Ask == nil {
		return egress.Reply{Answer: egress.Deny}, egress.ErrNoWindow
	}
	return p.opts.Ask(ctx, q)
}
