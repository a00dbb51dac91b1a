// Package netpolicy is the service's network policy: which hosts each
// sandboxed server may reach through mcptray's egress proxy (core/egress),
// whom to ask about another, where the person's "Always" is kept, what
// the flow guard says while a call of a session that read private data
// and untrusted content runs (Flow), and that a look at an unapproved
// server's tools reaches only what it declares, refused unasked.
//
// The running mcptray (core/instance) makes a Policy, then the proxy with
// its ProxyOptions, and gives both to the service, which attaches itself
// (Attach) as it is made: the policy reads the config in use and records
// trust decisions through what the service gives it, and never imports the
// service.
package netpolicy

import (
	"context"
	"log/slog"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
)

// Options configure a Policy.
type Options struct {
	Logger *slog.Logger
	// UserFile is mcptray's config file, where an "Always" is kept in the
	// server's sandbox settings.
	UserFile string
	// Ask asks the person whether a sandboxed server may reach a host
	// that is not on its list ("Allow weather to reach api.weather.gov?");
	// nil means there is no one to ask, and such connections are refused
	// with the command that allows them.
	Ask egress.AskFunc
}

// Service is what the policy needs of the running mcptray, given once by
// the service as it is made (Attach).
type Service struct {
	// Current is the config in use; nil before the first load.
	Current func() *config.Set
	// Reload puts a change to mcptray's config file to use now.
	Reload func()
	// Changed tells front ends that what they show may have changed.
	Changed func()
	// Record notes a trust decision in the activity record, made by who
	// by names in words ("the window"), or ("") by who ctx names.
	Record func(ctx context.Context, by string, action activity.TrustAction, target, detail string)
}

// Policy decides the sandboxed servers' connections. Its methods are safe
// for concurrent use.
type Policy struct {
	opts   Options
	svc    Service
	flows  flowState
	looks  lookSet
	trials trialSet
}

// New returns a policy that decides nothing until the service attaches.
func New(o Options) *Policy {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Policy{opts: o}
}

// Attach gives the policy what it needs of the service. service.New calls
// it, once, before the proxy starts; nothing else does.
func (p *Policy) Attach(s Service) { p.svc = s }

// ProxyOptions are what the proxy through which sandboxed servers reach
// the network needs from the policy: which hosts each server may reach,
// whom to ask about another, where to keep an "Always".
func (p *Policy) ProxyOptions() egress.Options {
	return egress.Options{
		Logger:   p.opts.Logger,
		Hosts:    p.hosts,
		Ask:      p.ask, // a look's connections are refused unasked (looks.go)
		Remember: p.rememberHost,
		// A call of a session that read private data and untrusted
		// content: its server's new hosts are asked with the chain.
		Flow: p.egressFlow,
		// The server's detail lists its refusals.
		OnRefusal: func(egress.Refusal) { p.changed() },
	}
}

// current is the config in use, or nil.
func (p *Policy) current() *config.Set {
	if p.svc.Current == nil {
		return nil
	}
	return p.svc.Current()
}

// record notes a trust decision, when there is a record.
func (p *Policy) record(ctx context.Context, by string, action activity.TrustAction, target, detail string) {
	if p.svc.Record != nil {
		p.svc.Record(ctx, by, action, target, detail)
	}
}

// reload puts a change to mcptray's config file to use now.
func (p *Policy) reload() {
	if p.svc.Reload != nil {
		p.svc.Reload()
	}
}

func (p *Policy) changed() {
	if p.svc.Changed != nil {
		p.svc.Changed()
	}
}
