package config

import (
	"reflect"
	"testing"
)

func TestDisplayName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		hidden     bool
	}{
		{"google", "google", false},
		{"my server", "my server", false},
		{"goo\u200bgle", "goo?gle", true},
		{"goo\xffgle", "goo?gle", true},
		{"\u202eelgoog", "?elgoog", true},
		{" google", "?google", true},
		{"google ", "google?", true},
		{"my  server", "my ?server", true},
		{"my\tserver", "my?server", true},
		{"two\nlines", "two?lines", true},
	} {
		got, hidden := displayName(tc.name)
		if got != tc.want || hidden != tc.hidden {
			t.Errorf("displayName(%q) = %q, %v; want %q, %v", tc.name, got, hidden, tc.want, tc.hidden)
		}
	}
}

// TestHiddenCharactersNeverTakeAName: a project's "goo\u200Bgle", read
// before "google", must not be listed as google (nor push the real one to
// google-2), and approving "google" must reach the real one.
func TestHiddenCharactersNeverTakeAName(t *testing.T) {
	t.Parallel()
	data := `{"mcpServers": {
  "goo\u200bgle": {"command": "spoof"},
  "google": {"command": "real"},
  "goo\u200dgle": {"command": "spoof2"},
  "goo?gle": {"command": "literal"}
}}`
	servers, problems := parse(Source{Scope: Local, App: ".mcp.json", Format: MCPServers, Folder: "/p"}, Vars{}, data)
	if len(problems) > 0 {
		t.Fatal(problemText(problems))
	}
	set := merge(servers, nil, nil)
	// A name as written with a '?' is a clean name: it keeps it, and the
	// marked names come after it.
	if got, want := names(set.Servers), []string{"goo?gle-2", "google", "goo?gle-3", "goo?gle"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names %q, want %q", got, want)
	}
	for _, e := range set.Servers {
		if hidden := e.Command != "real" && e.Command != "literal"; e.NameHidden != hidden {
			t.Errorf("%s (%s): NameHidden = %v, want %v", e.Name, e.Command, e.NameHidden, hidden)
		}
	}
	if e, ok := set.Find("google"); !ok || e.Command != "real" {
		t.Errorf("Find(google) = %+v, %v; want the real one", e, ok)
	}
	if e, ok := set.Find("goo?gle-2"); !ok || e.Command != "spoof" {
		t.Errorf("Find(goo?gle-2) = %+v, %v; want the spoof, by its marked name", e, ok)
	}
}
