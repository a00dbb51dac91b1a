package guard

import (
	"slices"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/tools"
)

// Server is what mcptray knows of a server for its tools' labels: plain
// facts its service holds, gathered by the gateway.
type Server struct {
	Name string
	// Remote says it runs elsewhere, at Host.
	Remote bool
	Host   string
	// Account says how it may reach the person's account: for a remote
	// server "it sends your credentials to mcp.example.com"; for a local
	// one the key it holds ("it holds your key GITHUB_TOKEN"), which makes
	// what it reads on the hosts it may reach private. "" when it cannot.
	Account string
	// Grants are what a local server's sandbox lets it do beyond running
	// its program and using its own data folder (sandbox.Grants), with
	// the hosts its runtime declares (its package registry) as host
	// grants that neither the person nor its entry gave (no Setting, no
	// AskedBy).
	Grants []sandbox.Grant
	// Unconfined says why mcptray cannot tell what a local server may
	// reach on the network ("it runs without a sandbox"), or "": its
	// labels then come from its folders, its tools' names and
	// annotations alone.
	Unconfined string
}

// Derive gives a tool of sv its labels from the facts, then from the
// tool's annotations and name, which only add.
func Derive(sv Server, t tools.Tool) ToolLabels {
	tl := ToolLabels{Tool: t.QualifiedName, Server: sv.Name, ServerTool: t.Name}
	if sv.Remote {
		tl.add(Untrusted, "it is a remote service at "+sv.Host+", and what it returns was written there")
		if sv.Account != "" {
			tl.add(Private, sv.Account)
			if t.Hints.ReadOnly != tools.HintTrue {
				tl.add(Egress, sv.Account+", and this tool does not say it only reads")
			}
		}
		tl.Destinations = append(tl.Destinations, sv.Host)
	}
	for _, g := range sv.Grants {
		switch g.Kind {
		case "project", "folder", "read", "write":
			tl.add(Private, "it may read "+g.What)
		case "host":
			if g.Setting == "" && g.AskedBy == "" {
				continue // its package registry, declared by its runtime
			}
			tl.add(Untrusted, "it may reach "+g.What)
			tl.add(Egress, "it may reach "+g.What)
			if sv.Account != "" {
				tl.add(Private, sv.Account+" and may reach "+g.What)
			}
			tl.Destinations = append(tl.Destinations, g.What)
		case "port":
			tl.add(Untrusted, "it may connect to port "+g.What+" on this computer")
			tl.add(Egress, "it may connect to port "+g.What+" on this computer")
			tl.Destinations = append(tl.Destinations, "port "+g.What)
		case "sockets":
			tl.add(Private, "it may use other programs' sockets")
			tl.add(Egress, "it may use other programs' sockets")
		}
	}
	if t.Hints.OpenWorld == tools.HintTrue {
		tl.add(Untrusted, "its server says it reaches the world outside (openWorldHint)")
		tl.add(Egress, "its server says it reaches the world outside (openWorldHint)")
	}
	untrusted, egress, private := nameSays(t.Name)
	if untrusted != "" {
		tl.add(Untrusted, "its name says it does ("+untrusted+")")
	}
	if egress != "" {
		tl.add(Egress, "its name says it does ("+egress+")")
	}
	if private != "" {
		tl.add(Private, "its name says it does ("+private+")")
	}
	if sv.Unconfined != "" && len(tl.Reasons) == 0 {
		tl.Reasons = append(tl.Reasons, Reason{Words: "no label from its sandbox: " + sv.Unconfined})
	}
	tl.Reasons = dedupe(tl.Reasons)
	tl.Destinations = slices.Compact(tl.Destinations)
	return tl
}

// dedupe keeps the first of reasons said twice.
func dedupe(rs []Reason) []Reason {
	out := make([]Reason, 0, len(rs))
	for _, r := range rs {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
