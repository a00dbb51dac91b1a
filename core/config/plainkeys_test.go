package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestMovePlainKeys: plain-text keys in env and headers become
// references, a bearer token keeps its scheme in the entry, names do not
// clash with references the entry has, and everything else stays.
func TestMovePlainKeys(t *testing.T) {
	entry := json.RawMessage(`{"url":"https://x.example/mcp","headers":{"Authorization":"Bearer tok-1","X-Api-Key":"k-2","Accept":"text/plain"},` +
		`"env":{"API_KEY":"${secret:API_KEY}"},"oauth":{"clientId":"c"}}`)
	out, moved, err := MovePlainKeys(entry)
	if err != nil {
		t.Fatal(err)
	}
	want := []MovedKey{{Key: "Authorization", Secret: "Authorization", Value: "tok-1"}, {Key: "X-Api-Key", Secret: "X_API_KEY", Value: "k-2"}}
	if len(moved) != 2 || moved[0] != want[0] || moved[1] != want[1] {
		t.Errorf("moved = %+v", moved)
	}
	var got struct {
		Headers map[string]string
		OAuth   map[string]string
	}
	json.Unmarshal(out, &got)
	if got.Headers["Authorization"] != "Bearer ${secret:Authorization}" || got.Headers["X-Api-Key"] != "${secret:X_API_KEY}" ||
		got.Headers["Accept"] != "text/plain" || got.OAuth["clientId"] != "c" {
		t.Errorf("entry = %s", out)
	}

	// env's API_KEY is referred to already: the new one is API_KEY_2.
	_, moved, _ = MovePlainKeys(json.RawMessage(`{"command":"x","args":["${secret:API_KEY}"],"env":{"API_KEY":"v"}}`))
	if len(moved) != 1 || moved[0].Secret != "API_KEY_2" {
		t.Errorf("a taken name: %+v", moved)
	}
	if _, moved, _ := MovePlainKeys(json.RawMessage(`{"command":"x","env":{"HOME":"/h"}}`)); len(moved) != 0 {
		t.Errorf("a value that is no key moved: %+v", moved)
	}
	if got := HeaderSecretName("x-goog-api-key"); got != "X_GOOG_API_KEY" {
		t.Errorf("HeaderSecretName = %q", got)
	}
}

// TestEntryAt: the entry at a server's Origin is read back as written,
// from a file with comments, trailing commas and non-ASCII text before it.
func TestEntryAt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	text := "{\n  // Réglages – ünïcode\n  \"servers\": {\n    \"a\": {\"command\": \"x\", /* c */ \"env\": {\"K\": \"${env:HOME}\",},},\n  },\n}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	servers, problems := parse(Source{Scope: Imported, App: "VS Code", File: file, Format: VSCode}, Vars{Lookup: mapLookup(map[string]string{"HOME": dir}), Home: dir}, text)
	if len(servers) != 1 {
		t.Fatalf("servers %+v, problems %+v", servers, problems)
	}
	e := servers[0]
	raw, err := EntryAt(file, e.Origin.Line, e.Origin.Column)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil || got["command"] != "x" || got["env"].(map[string]any)["K"] != "${env:HOME}" {
		t.Errorf("EntryAt = %s (%v)", raw, err)
	}
	if _, err := EntryAt(file, 99, 1); err == nil {
		t.Error("a line past the end gave an entry")
	}
}
