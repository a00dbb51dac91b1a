package netpolicy

import (
	"strings"
	"sync"

	"github.com/mcptray/mcptray/core/egress"
)

// trialPrefix marks a trial's name at the egress proxy: the trial start
// of a server's update, before the person accepts it (core/service's
// trial.go).
const trialPrefix = "trial of "

// trialSet are the trials running now, by the proxy's name for each.
type trialSet struct {
	mu      sync.Mutex
	running map[string]bool
}

// server is the server whose update the trial called key runs, when one
// runs now.
func (t *trialSet) server(key string) (string, bool) {
	name, ok := strings.CutPrefix(key, trialPrefix)
	if !ok {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return name, t.running[key]
}

// StartTrial counts a trial of server's update as running until end is
// called: the proxy knows it by key and lets it reach what the server
// may reach, and no more. It refuses anything else without asking, for
// the person has accepted nothing of the update yet, and an "Always"
// given to a trial would be one given to code they have not accepted. ok
// is false when a trial of server runs already.
func (p *Policy) StartTrial(server string) (key string, end func(), ok bool) {
	key = trialPrefix + server
	p.trials.mu.Lock()
	defer p.trials.mu.Unlock()
	if p.trials.running[key] {
		return key, nil, false
	}
	if p.trials.running == nil {
		p.trials.running = map[string]bool{}
	}
	p.trials.running[key] = true
	return key, func() {
		p.trials.mu.Lock()
		delete(p.trials.running, key)
		p.trials.mu.Unlock()
	}, true
}

// errTrialNotAsked refuses a trial's connection unasked (egress.ErrNotAsked),
// in words of its own: the refusal is listed with the trial.
type errTrialNotAsked struct{}

func (errTrialNotAsked) Error() string {
	return "mcptray only tried an update, and asks nothing for code you have not accepted"
}

func (errTrialNotAsked) Is(target error) bool { return target == egress.ErrNotAsked }
