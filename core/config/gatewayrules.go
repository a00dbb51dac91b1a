package config

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tailscale/hujson"
)

// Permission is what the gateway does when an app calls a tool.
type Permission string

// The permissions a person can give a tool.
const (
	// Allow lets calls through.
	Allow Permission = "allow"
	// Ask asks the person at each call; without a window to ask in, the
	// call is refused with a message that says how to allow it.
	Ask Permission = "ask"
	// Block refuses every call.
	Block Permission = "block"
)

// Valid reports whether p is one of Allow, Ask and Block.
func (p Permission) Valid() bool { return p == Allow || p == Ask || p == Block }

// GatewayRules are the person's choices about the gateway's tools, kept in
// mcptray's config file under "gateway".
type GatewayRules struct {
	// Permissions are the tools' permissions by qualified name
	// (mcp__server__tool). A tool without one is Allow when its server
	// says it only reads, and Ask otherwise.
	Permissions map[string]Permission `json:"permissions,omitempty"`
	// Hidden are qualified tool names and server names whose tools the
	// gateway does not offer.
	Hidden []string `json:"hidden,omitempty"`
	// Search, when set, has the gateway offer apps two tools instead of
	// every tool: one that finds tools by words and one that calls a found
	// tool, so that an app's context holds a handful of tools however many
	// servers run.
	Search bool `json:"search,omitempty"`
	// Guard are the flow guard's mode and the person's corrections of
	// the tools' labels (guardrules.go).
	Guard GuardRules `json:"guard,omitzero"`
}

// Hides reports whether the tool qualified of server is hidden.
func (r GatewayRules) Hides(server, qualified string) bool {
	return slices.Contains(r.Hidden, qualified) || slices.Contains(r.Hidden, server)
}

// SetPermission gives tool (mcp__SERVER__TOOL) the permission p; ""
// takes its own permission away, back to the default.
func (r *GatewayRules) SetPermission(tool string, p Permission) {
	if p == "" {
		delete(r.Permissions, tool)
		return
	}
	if r.Permissions == nil {
		r.Permissions = map[string]Permission{}
	}
	r.Permissions[tool] = p
}

// SetHidden hides target (a qualified tool name or a server's name) from
// the apps, or offers it again; it is listed once at most.
func (r *GatewayRules) SetHidden(target string, hidden bool) {
	r.Hidden = slices.DeleteFunc(r.Hidden, func(h string) bool { return h == target })
	if hidden {
		r.Hidden = append(r.Hidden, target)
	}
}

// gatewayRules reads "permissions" and "hidden" in the "gateway" object of
// mcptray's own config file.
func (d *document) gatewayRules() (GatewayRules, *Problem) {
	v := member(d.root.Value.(*hujson.Object), gatewayKey)
	if v == nil {
		return GatewayRules{}, nil
	}
	std, err := hujson.Standardize(append([]byte(nil), d.data[v.StartOffset:v.EndOffset]...))
	var r GatewayRules
	if err == nil {
		err = json.Unmarshal(std, &r)
	}
	if err != nil {
		return GatewayRules{}, d.problem(v.StartOffset, "", `"gateway" must be an object such as {"permissions": {"mcp__server__tool": "allow"}, "hidden": ["server"]}`)
	}
	if err := r.Guard.check(); err != nil {
		r.Guard.Mode = ""
		return r, d.problem(v.StartOffset, "", err.Error()+"; ask applies")
	}
	for tool, p := range r.Permissions {
		if !p.Valid() {
			delete(r.Permissions, tool)
			return r, d.problem(v.StartOffset, "", fmt.Sprintf("the permission of %s must be allow, ask or block; it was ignored", tool))
		}
	}
	return r, nil
}

// GatewayRules returns the gateway's rules as the file holds them.
func (u *UserFile) GatewayRules() (GatewayRules, error) {
	var r GatewayRules
	raw, ok := u.rest[gatewayKey]
	if !ok {
		return r, nil
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("%q must be an object such as {\"permissions\": {…}, \"hidden\": […]}", gatewayKey)
	}
	return r, nil
}

// SetGatewayRules keeps r, leaving any other key of the gateway's settings
// (its address) as it was.
func (u *UserFile) SetGatewayRules(r GatewayRules) error {
	var search any // false removes the key
	if r.Search {
		search = true
	}
	var guard any // no setting removes the key
	if !r.Guard.IsZero() {
		guard = r.Guard
	}
	return u.setGatewayKeys(map[string]any{"permissions": r.Permissions, "hidden": r.Hidden, "search": search, "guard": guard})
}

// setGatewayKeys sets keys of the "gateway" object; a nil or empty value
// removes its key.
func (u *UserFile) setGatewayKeys(kv map[string]any) error {
	g := map[string]json.RawMessage{}
	if raw, ok := u.rest[gatewayKey]; ok {
		if err := json.Unmarshal(raw, &g); err != nil || g == nil {
			return fmt.Errorf("%q must be an object such as {\"addr\": \"127.0.0.1:PORT\"}", gatewayKey)
		}
	}
	for k, v := range kv {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		switch string(b) {
		case "null", "{}", "[]", `""`:
			delete(g, k)
		default:
			g[k] = b
		}
	}
	out, err := json.Marshal(g)
	if err != nil {
		return err
	}
	if u.rest == nil {
		u.rest = map[string]json.RawMessage{}
	}
	u.rest[gatewayKey] = out
	return nil
}

// ModifyGatewayRules changes the gateway's rules in mcptray's config file
// at path; a running mcptray follows the change.
func ModifyGatewayRules(path string, fn func(*GatewayRules)) error {
	return ModifyUserFile(path, func(u *UserFile) error {
		r, err := u.GatewayRules()
		if err != nil {
			return err
		}
		fn(&r)
		if len(r.Permissions) == 0 {
			r.Permissions = nil
		}
		r.Hidden = slices.Clip(r.Hidden)
		return u.SetGatewayRules(r)
	})
}
