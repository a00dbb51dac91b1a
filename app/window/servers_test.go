package window

import (
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

func TestRowsOfGroupsByScope(t *testing.T) {
	s := service.Snapshot{Servers: []service.Server{
		{Name: "p", Scope: config.Project}, {Name: "u1", Scope: config.User},
		{Name: "i", Scope: config.Imported}, {Name: "u2", Scope: config.User},
		{Name: "mcptray", Scope: config.Dynamic, Transport: config.InProcess}, // built in: not listed
	}}
	var got []string
	for _, r := range rowsOf(s) {
		if r.header != "" {
			got = append(got, "# "+r.header)
		} else {
			got = append(got, r.server.Name)
		}
	}
	want := []string{
		"# " + scopeHeader(config.User), "u1", "u2",
		"# " + scopeHeader(config.Imported), "i",
		"# " + scopeHeader(config.Project), "p",
	}
	if len(got) != len(want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestCommandLine(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"npx", []string{"-y", "@scope/pkg@1.2", "--root=/a/b"}, "npx -y @scope/pkg@1.2 --root=/a/b"},
		{"/Program Files/x", []string{"a  b", "", "it's"}, `"/Program Files/x" "a  b" "" "it's"`},
		{"sh", []string{"-c", "rm -rf ~; echo\nhi"}, `sh -c "rm -rf ~; echo\nhi"`},
		{"run", []string{"x\u202ey", "\u00a0"}, `run "x\u202ey" "\u00a0"`}, // hidden characters shown, not hidden
		{"café", []string{"naïve"}, "café naïve"},
	} {
		if got := commandLine(tt.cmd, tt.args); got != tt.want {
			t.Errorf("commandLine(%q, %q) = %s, want %s", tt.cmd, tt.args, got, tt.want)
		}
	}
}

func TestHintsText(t *testing.T) {
	for _, tt := range []struct {
		h    tools.Hints
		want string
	}{
		{tools.Hints{}, "may change things"},
		{tools.Hints{ReadOnly: tools.HintTrue, OpenWorld: tools.HintFalse}, "read-only · closed world"},
		{tools.Hints{ReadOnly: tools.HintTrue, Destructive: tools.HintTrue}, "destructive"},
		{tools.Hints{Destructive: tools.HintFalse, Idempotent: tools.HintTrue, OpenWorld: tools.HintTrue}, "changes things, not destructive · idempotent · reaches outside"},
	} {
		if got := hintsText(tt.h); got != tt.want {
			t.Errorf("hintsText(%+v) = %q, want %q", tt.h, got, tt.want)
		}
	}
}
