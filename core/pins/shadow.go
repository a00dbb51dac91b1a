package pins

import (
	"bytes"
	"slices"

	"github.com/mcptray/mcptray/core/tools"
)

// Shadowing: a tool whose description names another server's tool can
// steer how the AI uses that tool, so a tool is read for other servers'
// tool names (Read) — and read again when such a name comes or goes,
// though the tool itself did not change: a tool that names get_forecast is
// flagged once another server starts to offer get_forecast, and no longer
// once it stops.

// shadowingAgain notes which tool names came or went since SeeTools was
// last told (a server's list changed, it connected, or it went), and has
// the tools of other servers that mention one read again. It reports, by
// running server, whose list is the one last checked and still holds.
// Called with p.mu held.
func (p *Policy) shadowingAgain(running []Listed) []bool {
	same := make([]bool, len(running))
	var came []string
	present := make(map[string]bool, len(running))
	for i, l := range running {
		if len(l.Tools) == 0 {
			continue
		}
		present[l.Server] = true
		was, named := p.names[l.Server]
		if st := p.servers[l.Server]; named && st != nil && st.checked && sameTools(st.tools, l.Tools) {
			same[i] = true
			continue // the same list: the same names
		}
		now := make([]string, len(l.Tools))
		for j, t := range l.Tools {
			now[j] = t.Name
		}
		if named && slices.Equal(was, now) {
			continue
		}
		for _, n := range now {
			if !slices.Contains(was, n) {
				came = append(came, n)
			}
		}
		for _, n := range was {
			if !slices.Contains(now, n) {
				came = append(came, n)
			}
		}
		p.names[l.Server] = now
	}
	for name, was := range p.names {
		if !present[name] {
			came = append(came, was...)
			delete(p.names, name)
		}
	}
	if len(came) == 0 {
		return same
	}
	changed := make(map[string]bool, len(came))
	for _, n := range came {
		changed[n] = true
	}
	for _, st := range p.servers {
		for tool, r := range st.read {
			if slices.ContainsFunc(r.mentions, func(n string) bool { return changed[n] }) {
				delete(st.read, tool) // read again by checkTools
				st.checked = false
			}
		}
	}
	for i, l := range running {
		st := p.servers[l.Server]
		same[i] = same[i] && st != nil && st.checked
	}
	return same
}

// others is, for a server, whether a tool name is one of another running
// server's, from the names SeeTools was last told of; the index of names
// is made once, when first asked. Called with p.mu held, and used before
// it is let go.
func (p *Policy) others() func(server string) func(string) bool {
	var owners map[string][]string
	return func(server string) func(string) bool {
		return func(n string) bool {
			if owners == nil {
				owners = map[string][]string{}
				for s, names := range p.names {
					for _, t := range names {
						owners[t] = append(owners[t], s)
					}
				}
			}
			return slices.ContainsFunc(owners[n], func(o string) bool { return o != server })
		}
	}
}

// sameTools reports whether two lists of a server's tools say the same,
// cheaply: an unchanged list shares its strings and bytes with the last.
func sameTools(a, b []tools.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y tools.Tool) bool {
		return x.Name == y.Name && x.QualifiedName == y.QualifiedName && x.Title == y.Title && x.Description == y.Description &&
			x.Hints == y.Hints && x.HiddenText == y.HiddenText && x.HiddenWords == y.HiddenWords && bytes.Equal(x.InputSchema, y.InputSchema) &&
			bytes.Equal(x.OutputSchema, y.OutputSchema) && bytes.Equal(x.Meta, y.Meta)
	})
}
