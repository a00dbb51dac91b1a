package pins

import (
	"encoding/json"
	"fmt"
	"testing"
)

// hundred are 100 tools of the size of a real server's: a few sentences of
// description and a schema of three fields.
func hundred() []Def {
	out := make([]Def, 100)
	for i := range out {
		out[i] = Def{
			Name:        fmt.Sprintf("tool_%03d", i),
			Description: "Reads the items of a project and returns them as a list, newest first. Use the filter to narrow them by label, and the limit to bound how many come back.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"project":{"type":"string","description":"the project's name"},"filter":{"type":"string","description":"a label"},"limit":{"type":"integer","description":"at most this many"}},"required":["project"]}`),
		}
	}
	return out
}

// BenchmarkCompare100 compares a server's 100 tools with their pins, as
// every list a server sends is; the goal is under 1 ms.
func BenchmarkCompare100(b *testing.B) {
	pinned, current := hundred(), hundred()
	current[50].Description += " Now also deletes them."
	b.ReportAllocs()
	for b.Loop() {
		if len(Compare(pinned, current)) != 1 {
			b.Fatal("one change expected")
		}
	}
}

// BenchmarkScan100 reads 100 tools for hidden instructions, as a server's
// first list and every change are.
func BenchmarkScan100(b *testing.B) {
	current := hundred()
	others := func(string) bool { return false }
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range current {
			if len(Scan(d, others)) != 0 {
				b.Fatal("flagged")
			}
		}
	}
}
