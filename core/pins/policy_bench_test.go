package pins

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/core/tools"
)

// hundredTools are a server's 100 tools of a real server's size, as the
// connection manager reports them.
func hundredTools() []tools.Tool {
	out := make([]tools.Tool, 100)
	for i := range out {
		out[i] = tools.Tool{
			Server: "s", Name: fmt.Sprintf("tool_%03d", i), QualifiedName: fmt.Sprintf("mcp__s__tool_%03d", i),
			Description: "Reads the items of a project and returns them as a list, newest first. Use the filter to narrow them by label, and the limit to bound how many come back.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"project":{"type":"string","description":"the project's name"},"filter":{"type":"string","description":"a label"},"limit":{"type":"integer","description":"at most this many"}},"required":["project"]}`),
		}
	}
	return out
}

// BenchmarkPinCheck100 is what the policy spends on one server's 100
// tools against their pins (goal: at most 1 ms). "unchanged" is every
// snapshot's case, a read of the list as last checked (Policy.Tools);
// "changed" is the service telling it of a list with one tool changed
// (SeeTools): compared, described and read for instructions (the others'
// readings are kept), the change counted once.
func BenchmarkPinCheck100(b *testing.B) {
	p := NewPolicy(filepath.Join(b.TempDir(), FileName), nil, nil)
	p.SeeTools([]Listed{{Server: "s", Tools: hundredTools()}})
	if offered, _, ok := p.Tools("s", hundredTools()); !ok || len(offered) != 100 {
		b.Fatal("first sight held tools")
	}
	changed := hundredTools()
	changed[50].Description += " Now also deletes them."
	b.Run("unchanged", func(b *testing.B) {
		again := hundredTools() // the same text, as a new report copies it
		for b.Loop() {
			if _, _, ok := p.Tools("s", again); !ok {
				b.Fatal("not known")
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.mu.Lock()
			p.servers["s"].checked = false // a list not checked yet
			p.mu.Unlock()
			p.SeeTools([]Listed{{Server: "s", Tools: changed}})
			if offered, _, _ := p.Tools("s", changed); len(offered) != 99 {
				b.Fatalf("%d offered", len(offered))
			}
		}
	})
}

// BenchmarkShadowingAgain100x100 is what SeeTools spends, with 100
// servers of 100 tools checked, when one server's list gains a tool:
// finding the tools of the others that mention a name that came, to read
// them again for shadowing (none here).
func BenchmarkShadowingAgain100x100(b *testing.B) {
	p := NewPolicy(filepath.Join(b.TempDir(), FileName), nil, nil)
	var running []Listed
	for i := range 100 {
		running = append(running, Listed{Server: fmt.Sprintf("s%03d", i), Tools: hundredTools()})
	}
	p.SeeTools(running) // every name comes once
	grown := append(hundredTools(), tools.Tool{Name: "tool_new", QualifiedName: "mcp__s__tool_new"})
	b.ReportAllocs()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := 0; b.Loop(); i++ {
		// One server's list gains a tool, then loses it again.
		if i%2 == 0 {
			running[0].Tools = grown
		} else {
			running[0].Tools = hundredTools()
		}
		p.shadowingAgain(running)
	}
}
