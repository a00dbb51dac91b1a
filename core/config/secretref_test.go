package config

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestExpandLeavesSecretReferences(t *testing.T) {
	t.Parallel()
	v := Vars{Lookup: mapLookup(map[string]string{"TOKEN": "plain", "secret:TOKEN": "leak"})}
	for in, want := range map[string]string{
		"${secret:TOKEN}":               "${secret:TOKEN}",
		"Bearer ${secret:TOKEN}":        "Bearer ${secret:TOKEN}",
		"${TOKEN}:${secret:GITHUB_PAT}": "plain:${secret:GITHUB_PAT}",
	} {
		got, err := v.Expand(in)
		if err != nil || got != want {
			t.Errorf("Expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"${secret:}", "${secret:A-B}", "${secret:A/B}", "${secret:X:-y}"} {
		if got, err := v.Expand(bad); err == nil {
			t.Errorf("Expand(%q) = %q, want an error", bad, got)
		}
	}
}

func TestApprovalKeyCoversTheSecretReference(t *testing.T) {
	t.Parallel()
	src := Source{Scope: User, App: "mcptray", File: "/x/config.json"}
	one, err := ParseServer("gh", []byte(`{"command":"npx","env":{"GITHUB_TOKEN":"${secret:GITHUB_TOKEN}"}}`), src, Vars{})
	if err != nil {
		t.Fatal(err)
	}
	if got := one.Env["GITHUB_TOKEN"]; got != "${secret:GITHUB_TOKEN}" {
		t.Fatalf("env value = %q, want the reference kept", got)
	}
	other, err := ParseServer("gh", []byte(`{"command":"npx","env":{"GITHUB_TOKEN":"${secret:OTHER}"}}`), src, Vars{})
	if err != nil {
		t.Fatal(err)
	}
	if ApprovalKey(&one) == ApprovalKey(&other) {
		t.Error("a server that refers to another secret must be approved again")
	}
	if got := one.SecretNames(); !reflect.DeepEqual(got, []string{"GITHUB_TOKEN"}) {
		t.Errorf("SecretNames = %q", got)
	}
}

func TestReplaceSecretRefs(t *testing.T) {
	t.Parallel()
	vals := map[string]string{"A": "1", "B": "2"}
	get := func(n string) (string, error) {
		if v, ok := vals[n]; ok {
			return v, nil
		}
		return "", errors.New("needs " + n)
	}
	got, err := ReplaceSecretRefs("x${secret:A}y${secret:B}${secret:A}", get)
	if err != nil || got != "x1y21" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ReplaceSecretRefs("${secret:C}", get); err == nil || !strings.Contains(err.Error(), "needs C") {
		t.Errorf("a missing secret: %v", err)
	}
	if got, _ := ReplaceSecretRefs("${secret:bad-name} $", get); got != "${secret:bad-name} $" {
		t.Errorf("a malformed reference must stay as it is: %q", got)
	}
	if got := SecretRefs("${secret:A} ${secret:} ${secret:B"); !reflect.DeepEqual(got, []string{"A"}) {
		t.Errorf("SecretRefs = %q", got)
	}
}

func TestUserFileSetting(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/config.json"
	if err := os.WriteFile(path, []byte(`{"registryUrl": "https://reg.example.org", "n": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := ReadUserFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := u.Setting("registryUrl"); !ok || v != "https://reg.example.org" {
		t.Errorf("registryUrl = %q, %v", v, ok)
	}
	if _, ok := u.Setting("n"); ok {
		t.Error("a number is not a string setting")
	}
	if _, ok := u.Setting("missing"); ok {
		t.Error("a missing setting")
	}
}

func TestPlainKeys(t *testing.T) {
	t.Parallel()
	src := Source{Scope: Imported, App: "Claude Desktop", File: "/x/claude_desktop_config.json"}
	s, err := ParseServer("gh", []byte(`{"command":"npx","env":{
		"GITHUB_PERSONAL_ACCESS_TOKEN":"ghp_x","BRAVE_API_KEY":"${BRAVE_API_KEY}","KEPT":"${secret:KEPT}",
		"LOG_LEVEL":"debug","DB_PASSWORD":"hunter2","EMPTY_TOKEN":""}}`), src, Vars{Lookup: mapLookup(map[string]string{"BRAVE_API_KEY": "b"})})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"DB_PASSWORD", "GITHUB_PERSONAL_ACCESS_TOKEN"}; !reflect.DeepEqual(s.PlainKeys, want) {
		t.Errorf("PlainKeys = %q, want %q", s.PlainKeys, want)
	}
	r, err := ParseServer("r", []byte(`{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer abc","Accept":"x"}}`), src, Vars{})
	if err != nil || !reflect.DeepEqual(r.PlainKeys, []string{"Authorization"}) {
		t.Errorf("headers: %q, %v", r.PlainKeys, err)
	}
}

// TestSecretFileRefs: ${secret-file:NAME} is a secret to read, is left by
// Expand, is replaced by a path, and is not a secret on the command line.
func TestSecretFileRefs(t *testing.T) {
	s := &Server{Args: []string{"--token-file", SecretFileRef("A"), "--key=" + SecretRef("B")}, Env: map[string]string{"C": SecretFileRef("C")}}
	if got := s.SecretNames(); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
		t.Errorf("SecretNames = %q", got)
	}
	if got := s.ArgSecretNames(); !reflect.DeepEqual(got, []string{"B"}) {
		t.Errorf("ArgSecretNames = %q", got)
	}
	if got, err := (Vars{}).Expand(SecretFileRef("A")); err != nil || got != "${secret-file:A}" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	got, err := ReplaceSecretFileRefs("f="+SecretFileRef("A")+" "+SecretRef("B"), func(n string) (string, error) { return "/path/" + n, nil })
	if err != nil || got != "f=/path/A ${secret:B}" {
		t.Errorf("ReplaceSecretFileRefs = %q, %v", got, err)
	}
}
