package config

import "testing"

// A server of mcptray's own config says which bundle it was installed
// from; a project's entry saying so is not taken at its word.
func TestBundleOfEntry(t *testing.T) {
	t.Parallel()
	entry := []byte(`{"command": "node", "args": ["/b/index.js"],
	  "mcptray": {"bundle": {"name": "weather", "version": "1.2.0", "source": "file", "from": "/d/weather.mcpb"}}}`)
	sv, err := ParseServer("weather", entry, Source{Scope: User, App: "mcptray", File: "/c/config.json"}, Vars{})
	if err != nil {
		t.Fatal(err)
	}
	if sv.Bundle == nil || *sv.Bundle != (Bundle{Name: "weather", Version: "1.2.0", Source: "file", From: "/d/weather.mcpb"}) {
		t.Errorf("bundle = %+v", sv.Bundle)
	}
	if c := sv.clone(); c.Bundle == sv.Bundle {
		t.Error("a clone shares its bundle with the original")
	}
	sv, err = ParseServer("weather", entry, Source{Scope: Project, App: ".mcp.json", File: "/p/.mcp.json", Folder: "/p"}, Vars{})
	if err != nil || sv.Bundle != nil {
		t.Errorf("a project's entry: bundle %+v, %v", sv.Bundle, err)
	}
}
