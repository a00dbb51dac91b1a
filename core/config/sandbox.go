package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcptray/mcptray/core/sandbox"
)

// sandboxKey is the user file's top-level key for the person's sandbox
// settings, by server name: {"sandbox": {"weather": {"read": ["~/Documents"],
// "hosts": ["api.weather.gov"], "off": false}}}.
const sandboxKey = "sandbox"

// entryKey is mcptray's own key in a server entry of any file; in it,
// "sandbox" asks for more than the default sandbox gives:
// "mcptray": {"sandbox": {"read": ["./data"], "hosts": ["api.github.com"]}}.
// What it asks for is part of the approval key, so a project file cannot
// widen its own sandbox without a new approval.
const entryKey = "mcptray"

// sandboxAsk reads an entry's "mcptray": {"sandbox": …}; relative paths
// are the entry's folder's.
func sandboxAsk(raw json.RawMessage, folder string) (sandbox.Settings, error) {
	var v struct {
		Sandbox *sandbox.Settings `json:"sandbox"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Sandbox == nil {
		if err != nil {
			return sandbox.Settings{}, fmt.Errorf(`"mcptray" must be an object such as {"sandbox": {"read": ["./data"], "hosts": ["api.example.com"]}}`)
		}
		return sandbox.Settings{}, nil
	}
	s := *v.Sandbox
	abs := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			if p != "" && !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") && folder != "" {
				p = filepath.Join(folder, p)
			}
			out = append(out, p)
		}
		return out
	}
	s.Read, s.Write = abs(s.Read), abs(s.Write)
	for _, p := range s.Ports {
		if p <= 0 || p > 65535 {
			return sandbox.Settings{}, fmt.Errorf("asks for port %d in its sandbox, which is no TCP port", p)
		}
	}
	return s, nil
}

// sandboxSettings reads the "sandbox" object of mcptray's own config file.
func (d *document) sandboxSettings() (map[string]sandbox.Settings, *Problem) {
	v := member(d.root.Value.(*hujson.Object), sandboxKey)
	if v == nil {
		return nil, nil
	}
	std, err := hujson.Standardize(append([]byte(nil), d.data[v.StartOffset:v.EndOffset]...))
	var m map[string]sandbox.Settings
	if err == nil {
		err = json.Unmarshal(std, &m)
	}
	if err != nil {
		return nil, d.problem(v.StartOffset, "", `"sandbox" must be an object of servers by name, such as {"weather": {"read": ["~/Documents"]}}`)
	}
	return m, nil
}

// applySandbox gives each server its sandbox settings: the person's, with
// what its own entry asks for.
func (s *Set) applySandbox(person map[string]sandbox.Settings) {
	s.Sandbox = person
	for i := range s.Servers {
		sv := &s.Servers[i].Server
		sv.Sandbox = person[sv.Name].Merge(sv.SandboxAsk)
	}
}

// SandboxSettings returns the person's sandbox settings by server name.
func (u *UserFile) SandboxSettings() (map[string]sandbox.Settings, error) {
	m := map[string]sandbox.Settings{}
	raw, ok := u.rest[sandboxKey]
	if !ok {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return map[string]sandbox.Settings{}, fmt.Errorf("%q must be an object of servers by name, such as {\"weather\": {\"read\": [\"~/Documents\"]}}", sandboxKey)
	}
	return m, nil
}

// ModifySandbox changes the person's sandbox settings of server in
// mcptray's config file at path; a running mcptray restarts the server with
// them.
func ModifySandbox(path, server string, fn func(*sandbox.Settings)) error {
	return ModifyUserFile(path, func(u *UserFile) error { return u.ChangeSandbox(server, fn) })
}

// ChangeSandbox changes the person's sandbox settings of server in u; fn
// may also empty them, and then they go.
func (u *UserFile) ChangeSandbox(server string, fn func(*sandbox.Settings)) error {
	m, err := u.SandboxSettings()
	if err != nil {
		return err
	}
	s := m[server]
	fn(&s)
	s.Read, s.Write, s.Hosts, s.Ports = slices.Clip(s.Read), slices.Clip(s.Write), slices.Clip(s.Hosts), slices.Clip(s.Ports)
	if s.Empty() {
		delete(m, server)
	} else {
		m[server] = s
	}
	if len(m) == 0 {
		delete(u.rest, sandboxKey)
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if u.rest == nil {
		u.rest = map[string]json.RawMessage{}
	}
	u.rest[sandboxKey] = b
	return nil
}
