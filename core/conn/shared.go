package conn

import (
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
	// Only what they may write counts, which neither the proxy nor their
	// environment changes; asking the proxy would mint a credential.
	oo := *o
	oo.Egress, oo.Others = nil, nil
	var out []string
	for i := range servers {
		s := &servers[i].Server
		if s.Name == name || !oo.Sandboxed(s) {
			continue
		}
		p, err := sandbox.Default(oo.SandboxInput(s, s.Command, nil))
		if err != nil {
			continue
		}
		for _, w := range p.Writes() {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// othersWrite is Options.OthersWrite for the config m applied last,
// worked out once for each config.
func (m *Manager) othersWrite(name string) []string {
	m.mu.Lock()
	set := m.set
	m.mu.Unlock()
	m.shared.Lock()
	defer m.shared.Unlock()
	if m.shared.set != set {
		m.shared.set, m.shared.by = set, map[string][]string{}
	}
	if w, ok := m.shared.by[name]; ok {
		return w
	}
	w := m.opts.OthersWrite(set.Servers, name)
	m.shared.by[name] = w
	return w
}

// OthersWrite is othersWrite for the service: what the other servers
// of the config the manager applied may write.
func (m *Manager) OthersWrite(name string) []string { return slices.Clone(m.othersWrite(name)) }
