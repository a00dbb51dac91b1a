package config

import "encoding/json"

// Bundle says a server of mcptray's own config was installed from an MCP
// Bundle (core/bundle), as its entry keeps it under "mcptray":
// {"bundle": {"name": "weather", "version": "1.2.0", "source": "file",
// "from": "/home/ann/Downloads/weather.mcpb", …}}. Only mcptray's own
// config is read for it: a project's file cannot make its server pass for
// an installed bundle.
type Bundle struct {
	// Name and Version are the bundle's, from its manifest.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Source is where it came from: "file" or "registry"; From is that
	// file's path or the registry's name for it.
	Source string `json:"source"`
	From   string `json:"from,omitempty"`
	// SHA256 is the bundle file's digest; Signature what its signature
	// said when it was installed ("Signed by …", "Not signed").
	SHA256    string `json:"sha256,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// bundleOf reads an entry's "mcptray": {"bundle": …}; nil when it has
// none or it is not an object of that shape.
func bundleOf(raw json.RawMessage) *Bundle {
	var v struct {
		Bundle *Bundle `json:"bundle"`
	}
	if json.Unmarshal(raw, &v) != nil || v.Bundle == nil || v.Bundle.Name == "" {
		return nil
	}
	return v.Bundle
}

// BundleEntry is the "mcptray" object of an entry that keeps b.
func BundleEntry(b Bundle) map[string]any { return map[string]any{"bundle": b} }
