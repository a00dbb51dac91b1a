package cli

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
)

func TestGatewaySearchSwitch(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if out := h.must("gateway", "search"); !strings.Contains(out, "Search mode is off") {
		t.Errorf("gateway search in a fresh home: %q", out)
	}
	h.must("permissions", "block", "mcp__notes__delete")
	h.must("gateway", "search", "on")
	set := config.NewLoader(h.paths).Load()
	if !set.Gateway.Search || set.Gateway.Permissions["mcp__notes__delete"] != config.Block {
		t.Errorf("after search on the loader reads %+v", set.Gateway)
	}
	if out := h.must("gateway", "search"); !strings.Contains(out, "Search mode is on") {
		t.Errorf("gateway search after on: %q", out)
	}
	h.must("gateway", "search", "off")
	if set := config.NewLoader(h.paths).Load(); set.Gateway.Search || len(set.Gateway.Permissions) != 1 {
		t.Errorf("after search off the loader reads %+v", set.Gateway)
	}
	h.fails(2, "takes on or off", "gateway", "search", "maybe")
}
