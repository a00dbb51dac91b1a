package conn

import (
	"maps"
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// OthersWrite are the folders that the local servers of servers other
// than the one called name may write, as their configs give them now
// (sandbox.Policy.Writes): a link there may be another server's, planted
// for name's next start, and name's sandbox follows none
// (sandbox.Input.OthersWrite). A server run without a sandbox may write
// anything, and is not counted: the words say so of it.
func (o *Options) OthersWrite(servers []config.Entry, name string) []string {
	return othersIn(o.writesOf(servers), name)
}

// writesOf are the folders each sandboxed local server of servers may
// write, by name.
func (o *Options) writesOf(servers []config.Entry) map[string][]string {
	// Only what they may write counts, which neither the proxy nor their
	// environment changes; asking the proxy would mint a credential.
	oo := *o
	oo.Egress, oo.Others = nil, nil
	out := map[string][]string{}
	for i := range servers {
		s := &servers[i].Server
		if !oo.Sandboxed(s) {
			continue
		}
		if p, err := sandbox.Default(oo.SandboxInput(s, s.Command, nil)); err == nil {
			out[s.Name] = p.Writes()
		}
	}
	return out
}

// othersIn is what the servers of writes other than name may write, each
// folder once, in a fixed order.
func othersIn(writes map[string][]string, name string) []string {
	var out []string
	for _, other := range slices.Sorted(maps.Keys(writes)) {
		if other == name {
			continue
		}
		for _, w := range writes[other] {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// othersWrite is Options.OthersWrite for the config m applied last: what
// each of its servers may write is worked out once for each config.
func (m *Manager) othersWrite(name string) []string {
	m.mu.Lock()
	set := m.set
	m.mu.Unlock()
	m.shared.Lock()
	defer m.shared.Unlock()
	if m.shared.set != set {
		m.shared.set, m.shared.writes = set, m.opts.writesOf(set.Servers)
	}
	return othersIn(m.shared.writes, name)
}

// OthersWrite is othersWrite for the service: what the other servers
// of the config the manager applied may write.
func (m *Manager) OthersWrite(name string) []string { return m.othersWrite(name) }
