package netpolicy

import (
	"context"
	"errors"
	"sync"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/egress"
	"github.com/mcptray/mcptray/core/guard"
)

// Flow is what a call carries when the app session it runs for had read
// the person's data and content someone else wrote (core/guard): while it
// runs, its server's connection to a host not on its list is asked about
// with the chain in words (egress.Question.Chain), and refused without
// asking in the guard's block mode, whatever the tool's labels say.
type Flow struct {
	// Chain is how the session came to the call, the call its Send; its
	// To is filled with each host the server connects to.
	Chain guard.Chain
	// Decided, when set, notes the guard's decision about such a
	// connection with the chain in words (the call's activity record).
	// It must not wait.
	Decided func(d activity.Decision, chain string)
}

// flowState are the calls running with a Flow, by server name.
type flowState struct {
	mu       sync.Mutex
	byServer map[string][]*Flow
}

// StartFlow counts a call with f as running on server until the returned
// func is called.
func (p *Policy) StartFlow(server string, f *Flow) (end func()) {
	return p.flows.start(server, f)
}

// start counts f as running on server until the returned func is called.
func (fs *flowState) start(server string, f *Flow) (end func()) {
	fs.mu.Lock()
	if fs.byServer == nil {
		fs.byServer = map[string][]*Flow{}
	}
	fs.byServer[server] = append(fs.byServer[server], f)
	fs.mu.Unlock()
	return func() {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		list := fs.byServer[server]
		for i, x := range list {
			if x == f {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(fs.byServer, server)
		} else {
			fs.byServer[server] = list
		}
	}
}

// latest is the last call with a Flow to start on server of those still
// running, or nil.
func (fs *flowState) latest(server string) *Flow {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if list := fs.byServer[server]; len(list) > 0 {
		return list[len(list)-1]
	}
	return nil
}

// egressFlow is the proxy's Options.Flow: while a call with a Flow runs on
// server, and the guard is not off, the chain in words with dest as where
// data would go; else "".
func (p *Policy) egressFlow(server, dest string) string {
	f := p.flows.latest(server)
	if f == nil || p.guardMode() == config.GuardOff {
		return ""
	}
	c := f.Chain
	c.To = dest
	return c.Words()
}

// guardMode is the flow guard's mode in the config in use.
func (p *Policy) guardMode() config.GuardMode {
	if set := p.current(); set != nil {
		return set.Gateway.Guard.Mode.Or()
	}
	return config.GuardAsk
}

// askFlow asks the person about a connection the guard asks about (q has
// a Chain), or refuses it in block mode, and notes the decision in the
// record of the call it came during.
func (p *Policy) askFlow(ctx context.Context, q egress.Question) (egress.Reply, error) {
	var decided func(activity.Decision, string)
	if f := p.flows.latest(q.Server); f != nil {
		decided = f.Decided
	}
	note := func(d activity.Decision) {
		if decided != nil {
			decided(d, q.Chain)
		}
	}
	if p.guardMode() == config.GuardBlock {
		note(activity.GuardBlocked)
		return egress.Reply{Answer: egress.Deny}, egress.ErrGuardBlocks
	}
	if p.opts.Ask == nil {
		note(activity.GuardNoWindow)
		return egress.Reply{Answer: egress.Deny}, egress.ErrNoWindow
	}
	reply, err := p.opts.Ask(ctx, q)
	switch {
	case errors.Is(err, egress.ErrNoWindow):
		note(activity.GuardNoWindow)
	case err != nil:
		note(activity.GuardUnanswered)
	case reply.Answer == egress.Deny:
		note(activity.GuardDeclined)
	default:
		// "Always" is also a trust decision of its own (rememberHost).
		note(activity.GuardAllowedOnce)
	}
	return reply, err
}
