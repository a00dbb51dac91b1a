package config

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mcptray/mcptray/core/sandbox"
)

// Entry is one server in a Set with what mcptray concluded about it.
type Entry struct {
	Server
	// Signature identifies what the server runs (see Signature).
	Signature string
	// ApprovalKey identifies exactly what it runs (see ApprovalKey).
	ApprovalKey string
	Approval    Approval
	// Suppressed, when set, says in plain words why this entry does not
	// run: a more trusted scope has the same server (SuppressedBy names
	// it), the organisation's policy blocks it, or its data folder would
	// be that of a more trusted server (refuseSharedFolders).
	Suppressed   string
	SuppressedBy string
	// TurnedOff says the person turned the server off in mcptray (it is
	// then Disabled too), rather than its own file saying "disabled".
	TurnedOff bool
}

// Runnable reports whether mcptray may start the server now.
func (e *Entry) Runnable() bool {
	return e.Suppressed == "" && !e.Disabled && (e.Approval == NotNeeded || e.Approval == Approved)
}

// Set is every server mcptray knows about, merged from every scope.
type Set struct {
	// Servers holds one entry per Signature, most trusted scope first,
	// with unique names.
	Servers []Entry
	// Suppressed holds the entries that give way to another, are
	// blocked or would share another's data folder, each with its reason.
	Suppressed []Entry
	// Problems are the files and servers that could not be read.
	Problems []Problem
	// Folders are the project folders being read.
	Folders []string
	// IdentityProvider is the person's identity provider for Cross-App
	// Access, or nil.
	IdentityProvider *IdentityProvider
	// Gateway are the person's permissions and hidden tools for the
	// gateway.
	Gateway GatewayRules
	// Sandbox are the person's sandbox settings by server name (each
	// server's Sandbox has its own, with what its entry asks).
	Sandbox map[string]sandbox.Settings
	// Activity are the activity record's settings in mcptray's config
	// file (zero fields: the defaults).
	Activity ActivitySettings
}

// Find returns the server called name: first by its name in mcptray, then
// by its name as written in its file when only one server has that name.
func (s *Set) Find(name string) (*Entry, bool) {
	for i := range s.Servers {
		if s.Servers[i].Name == name {
			return &s.Servers[i], true
		}
	}
	var found *Entry
	for i := range s.Servers {
		if s.Servers[i].ConfigName == name {
			if found != nil {
				return nil, false
			}
			found = &s.Servers[i]
		}
	}
	return found, found != nil
}

// merge turns servers from every scope into a Set: the policy blocks what it
// forbids, the most trusted scope wins among configs of one server, names
// are made unique, and local and project servers get the person's decision.
func merge(all []Server, policy *Policy, decisions map[string]Decision) *Set {
	// Stable: within a scope, servers keep the order they were read in.
	slices.SortStableFunc(all, func(a, b Server) int { return int(a.Scope) - int(b.Scope) })

	set := &Set{}
	winners := map[string]int{} // signature → index in set.Servers
	var gaveWay [][2]int        // index in set.Suppressed, index of its winner in set.Servers
	for _, s := range all {
		e := Entry{Server: s.clone(), Signature: Signature(&s), ApprovalKey: ApprovalKey(&s), Approval: NotNeeded}
		if reason := policy.Blocks(&s); reason != "" {
			e.Suppressed = reason
			set.Suppressed = append(set.Suppressed, e)
			continue
		}
		if i, dup := winners[e.Signature]; dup {
			set.Suppressed = append(set.Suppressed, e)
			gaveWay = append(gaveWay, [2]int{len(set.Suppressed) - 1, i})
			continue
		}
		if e.Scope.NeedsApproval() {
			e.Approval = Undecided
			if d, ok := decisions[e.ApprovalKey]; ok {
				e.Approval = d.Approval
			}
		}
		set.Servers = append(set.Servers, e)
		winners[e.Signature] = len(set.Servers) - 1
	}
	// Names without hidden characters are given out first, so that a
	// marked name never takes one that a name without them would get.
	names := map[string]bool{BuiltinName: true}
	for _, hidden := range []bool{false, true} {
		for i := range set.Servers {
			if e := &set.Servers[i]; e.NameHidden == hidden {
				e.Name = uniqueName(e.Name, names)
			}
		}
	}
	for _, g := range gaveWay {
		e, w := &set.Suppressed[g[0]], &set.Servers[g[1]]
		e.SuppressedBy = w.Name
		e.Suppressed = fmt.Sprintf("same server as %q from the %s scope (%s)", w.Name, w.Scope, w.Origin)
	}
	set.refuseSharedFolders()
	return set
}

// BuiltinName is the name of mcptray's own built-in server, which no
// configured server may take: one called so is renamed (mcptray-2), as any
// other name clash is.
const BuiltinName = "mcptray"

// uniqueName returns name, or name-2, name-3… when it is taken, and marks
// the result taken. Servers are visited most trusted first, so the most
// trusted keeps the plain name.
func uniqueName(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[out]; i++ {
		out = name + "-" + strconv.Itoa(i)
	}
	taken[out] = true
	return out
}
