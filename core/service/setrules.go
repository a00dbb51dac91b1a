package service

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/sets"
	"github.com/mcptray/mcptray/core/tools"
)

// A set's own permissions and hiding, and the checks of the single tools
// a set names: a tool is written SERVER/TOOL, as people see it, and kept
// by the qualified name the gateway offers it under.

// SetRules change a set's own permissions and what it hides; what the set
// leaves unsaid falls back to the general settings, the same for every
// app.
type SetRules struct {
	// Permissions are the set's own, by tool (SERVER/TOOL, or the
	// qualified name); "" drops the set's own, so the tool falls back to
	// the general setting.
	Permissions map[string]config.Permission `json:"permissions,omitempty"`
	// Hide and Show are tools (SERVER/TOOL or qualified) or servers the
	// set hides, or hides no more.
	Hide []string `json:"hide,omitempty"`
	Show []string `json:"show,omitempty"`
	// Replace drops the permissions and hiding the set had before these.
	Replace bool `json:"replace,omitempty"`
}

// toolRef is one SERVER/TOOL a request names, found in the snapshot.
type toolRef struct {
	server, tool, qualified string
}

// findTool finds ref, SERVER/TOOL, in snap: refused in words when the
// server is not there, or is connected and has no such tool; a warning
// when the server is not connected, so that its tools are not known.
func findTool(snap Snapshot, ref string) (toolRef, string, error) {
	server, tool, ok := strings.Cut(ref, "/")
	if !ok || server == "" || tool == "" {
		return toolRef{}, "", newError(Invalid, "a single tool is written SERVER/TOOL, not %q", sanitize.Line(ref))
	}
	r := toolRef{server: server, tool: tool, qualified: tools.QualifiedName(server, tool)}
	i := slices.IndexFunc(snap.Servers, func(sv Server) bool { return sv.Name == server })
	if i < 0 {
		return toolRef{}, "", newError(NotFound, "there is no server called %q in mcptray (for the tool %s)", sanitize.Line(server), sanitize.Line(ref))
	}
	sv := &snap.Servers[i]
	if sv.State != conn.Connected {
		return r, fmt.Sprintf("%s is not connected now, so mcptray could not check that it has a tool called %q; the set holds it once it has",
			sanitize.Line(server), sanitize.Line(tool)), nil
	}
	for _, t := range sv.Tools {
		if t.Name == tool {
			if t.QualifiedName != "" {
				r.qualified = t.QualifiedName
			}
			return r, "", nil
		}
	}
	var names []string
	for _, t := range sv.Tools {
		names = append(names, t.Name)
	}
	return toolRef{}, "", newError(Invalid, "the server %s has no tool called %q (its tools: %s)",
		sanitize.Line(server), sanitize.Line(tool), sanitize.Line(firstFew(names)))
}

// checkSetTools checks the single tools req names, and turns its rules'
// tools into qualified names; the warnings say which could not be checked.
func checkSetTools(snap Snapshot, req *SetRequest) (warnings []string, err error) {
	warn := func(w string) {
		if w != "" && !slices.Contains(warnings, w) {
			warnings = append(warnings, w)
		}
	}
	for _, ref := range req.Tools {
		_, w, err := findTool(snap, ref)
		if err != nil {
			return nil, err
		}
		warn(w)
	}
	if req.Rules == nil {
		return warnings, nil
	}
	// name is the name the set keeps of a tool or (for hiding) a server.
	name := func(ref string, server bool) (string, error) {
		if server && !strings.Contains(ref, "/") && slices.ContainsFunc(snap.Servers, func(sv Server) bool { return sv.Name == ref }) {
			return ref, nil
		}
		if strings.HasPrefix(ref, "mcp__") && !strings.Contains(ref, "/") {
			return ref, nil
		}
		if !strings.Contains(ref, "/") {
			if server {
				return "", newError(NotFound, "there is no server called %q in mcptray; a tool is written SERVER/TOOL", sanitize.Line(ref))
			}
			return "", newError(Invalid, "a tool is written SERVER/TOOL, not %q", sanitize.Line(ref))
		}
		r, w, err := findTool(snap, ref)
		warn(w)
		return r.qualified, err
	}
	rules := SetRules{Permissions: map[string]config.Permission{}, Replace: req.Rules.Replace}
	for ref, p := range req.Rules.Permissions {
		if p != "" && !p.Valid() {
			return nil, newError(Invalid, "the tool %s's permission must be allow, ask or block, not %q", sanitize.Line(ref), sanitize.Line(string(p)))
		}
		q, err := name(ref, false)
		if err != nil {
			return nil, err
		}
		rules.Permissions[q] = p
	}
	for _, list := range []struct {
		from []string
		to   *[]string
	}{{req.Rules.Hide, &rules.Hide}, {req.Rules.Show, &rules.Show}} {
		for _, ref := range list.from {
			q, err := name(ref, true)
			if err != nil {
				return nil, err
			}
			*list.to = append(*list.to, q)
		}
	}
	for _, h := range rules.Hide {
		if slices.Contains(rules.Show, h) {
			return nil, newError(Invalid, "%s is both hidden and shown", sanitize.Line(h))
		}
	}
	req.Rules = &rules
	return warnings, nil
}

// applyRules changes set's own permissions and hiding by rules, whose
// tools are qualified names (checkSetTools).
func applyRules(set *sets.Set, rules *SetRules) {
	if rules == nil {
		return
	}
	if rules.Replace {
		set.Permissions, set.Hidden = nil, nil
	}
	for q, p := range rules.Permissions {
		if p == "" {
			delete(set.Permissions, q)
			continue
		}
		if set.Permissions == nil {
			set.Permissions = map[string]config.Permission{}
		}
		set.Permissions[q] = p
	}
	if len(set.Permissions) == 0 {
		set.Permissions = nil
	}
	set.Hidden = slices.DeleteFunc(set.Hidden, func(h string) bool { return slices.Contains(rules.Show, h) })
	for _, h := range rules.Hide {
		if !slices.Contains(set.Hidden, h) {
			set.Hidden = append(set.Hidden, h)
		}
	}
	slices.Sort(set.Hidden)
}
