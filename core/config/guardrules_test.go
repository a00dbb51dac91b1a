package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGuardRulesKept: the guard's mode and a tool's corrections are kept
// beside the gateway's other settings, and go when emptied.
func TestGuardRulesKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"gateway": {"addr": "127.0.0.1:4000", "permissions": {"mcp__a__b": "allow"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	no := false
	err := ModifyGatewayRules(path, func(r *GatewayRules) {
		r.Guard.Mode = GuardBlock
		r.Guard.SetLabels("mcp__slack__post", LabelChange{Egress: &no}, false)
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := ReadUserFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := u.GatewayRules()
	if err != nil {
		t.Fatal(err)
	}
	c := r.Guard.Labels["mcp__slack__post"]
	if r.Guard.Mode != GuardBlock || c.Egress == nil || *c.Egress || r.Permissions["mcp__a__b"] != Allow {
		t.Fatalf("kept %+v", r)
	}
	if err := ModifyGatewayRules(path, func(r *GatewayRules) {
		r.Guard.Mode = ""
		r.Guard.SetLabels("mcp__slack__post", LabelChange{}, true)
	}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if u, _ := ReadUserFile(path); u == nil {
		t.Fatal("unreadable")
	} else if r, _ := u.GatewayRules(); !r.Guard.IsZero() {
		t.Errorf("emptied guard settings stayed: %s", b)
	}
	if !(GuardMode("").Valid() && GuardMode("").Or() == GuardAsk) || GuardMode("loud").Valid() {
		t.Error("modes")
	}
}
