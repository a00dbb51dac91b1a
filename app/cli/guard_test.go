package cli

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

// TestGuardCommands: mcptray guard says the mode, guard off|ask|block
// sets it and guard label corrects a tool's labels, all kept in
// config.json where the loader reads them.
func TestGuardCommands(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if out := h.must("guard"); !strings.Contains(out, "The guard asks") || !strings.Contains(out, "No server is connected") {
		t.Errorf("guard printed %q", out)
	}
	if out := h.must("guard", "block"); !strings.Contains(out, "The guard blocks") {
		t.Errorf("guard block printed %q", out)
	}
	h.must("guard", "label", "mcp__slack__post", "--not-egress", "--private")
	set := config.NewLoader(h.paths).Load()
	c := set.Gateway.Guard.Labels["mcp__slack__post"]
	if set.Gateway.Guard.Mode != config.GuardBlock || c.Egress == nil || *c.Egress || c.Private == nil || !*c.Private || c.Untrusted != nil {
		t.Errorf("the loader reads %+v", set.Gateway.Guard)
	}
	h.must("guard", "ask")
	h.must("guard", "label", "mcp__slack__post", "--reset")
	if set := config.NewLoader(h.paths).Load(); !set.Gateway.Guard.IsZero() {
		t.Errorf("after ask and reset the loader reads %+v", set.Gateway.Guard)
	}
	h.fails(2, "--not-egress", "guard", "label", "mcp__slack__post", "--loud")
	h.fails(2, "mcp__SERVER__TOOL", "guard", "label", "post", "--egress")
	h.fails(2, "guard takes", "guard", "maybe")
}
