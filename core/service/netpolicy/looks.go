package netpolicy

import (
	"strings"
	"sync"

	"github.com/mcptray/mcptray/core/egress"
)

// lookPrefix marks a look's name at the egress proxy, which refuses rather
// than asks for it.
const lookPrefix = "look at "

// lookSet are the looks at unapproved servers' tools running now, by the
// proxy's name for each.
type lookSet struct {
	mu      sync.Mutex
	running map[string]bool
}

// isLook reports whether key is the proxy's name for a look running now.
func (l *lookSet) isLook(key string) bool {
	if !strings.HasPrefix(key, lookPrefix) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running[key]
}

// StartLook counts a look at server as running until end is called: the
// proxy knows it by key, lets it reach only what the server declares, and
// refuses anything else without asking. ok is false when a look at server
// runs already.
func (p *Policy) StartLook(server string) (key string, end func(), ok bool) {
	key = lookPrefix + server
	p.looks.mu.Lock()
	defer p.looks.mu.Unlock()
	if p.looks.running[key] {
		return key, nil, false
	}
	if p.looks.running == nil {
		p.looks.running = map[string]bool{}
	}
	p.looks.running[key] = true
	return key, func() {
		p.looks.mu.Lock()
		delete(p.looks.running, key)
		p.looks.mu.Unlock()
	}, true
}

// lookHosts is the proxy's list for a look: only what the server
// declares.
func (p *Policy) lookHosts(key string) ([]string, bool) {
	if !p.looks.isLook(key) {
		return nil, false
	}
	set := p.current()
	if set == nil {
		return nil, true
	}
	e, ok := set.Find(strings.TrimPrefix(key, lookPrefix))
	if !ok {
		return nil, true
	}
	return egress.Declared(e.Command, e.Args, nil), true
}
