package service

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/pins"
	"github.com/mcptray/mcptray/core/tools"
)

// hundredTools are a server's 100 tools of a real server's size.
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

// BenchmarkPinCheck100 is what a snapshot spends on one server's 100
// tools against their pins (goal: at most 1 ms): "unchanged" is every
// snapshot's case, the list as last checked; "changed" is a new list
// with one tool changed, compared, described and read for instructions.
func BenchmarkPinCheck100(b *testing.B) {
	store, err := pins.Open(filepath.Join(b.TempDir(), pins.FileName))
	if err != nil {
		b.Fatal(err)
	}
	svc := &Service{opts: Options{Now: time.Now}, log: slog.New(slog.DiscardHandler)}
	list := hundredTools()
	others := func(string) bool { return false }
	svc.pins.cache = map[string]*pinCheck{}
	svc.pins.scanned = map[string]map[string]scanned{}
	first := svc.checkPins(store, "s", list, others)
	if len(first.offered) != 100 {
		b.Fatal("first sight held tools")
	}
	changed := hundredTools()
	changed[50].Description += " Now also deletes them."
	b.Run("unchanged", func(b *testing.B) {
		again := hundredTools() // the same text, as a new report copies it
		for b.Loop() {
			if !sameTools(first.seen, again) {
				b.Fatal("differs")
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if c := svc.checkPins(store, "s", changed, others); len(c.offered) != 99 {
				b.Fatalf("%d offered", len(c.offered))
			}
		}
	})
}

// BenchmarkShadowingAgain100x100 is what a snapshot spends, with 100
// servers of 100 tools checked, when one server's list gains a tool:
// finding the tools of the others that mention a name that came, to read
// them again for shadowing (none here).
func BenchmarkShadowingAgain100x100(b *testing.B) {
	store, err := pins.Open(filepath.Join(b.TempDir(), pins.FileName))
	if err != nil {
		b.Fatal(err)
	}
	svc := &Service{opts: Options{Now: time.Now}, log: slog.New(slog.DiscardHandler)}
	svc.pins.cache = map[string]*pinCheck{}
	svc.pins.scanned = map[string]map[string]scanned{}
	svc.pins.toolNames = map[string][]string{}
	var snap Snapshot
	for i := range 100 {
		name := fmt.Sprintf("s%03d", i)
		list := hundredTools()
		svc.pins.cache[name] = svc.checkPins(store, name, list, func(string) bool { return false })
		snap.Servers = append(snap.Servers, Server{Name: name, Tools: list})
	}
	svc.shadowingAgain(&snap) // every name comes once
	grown := append(hundredTools(), tools.Tool{Name: "tool_new", QualifiedName: "mcp__s__tool_new"})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// One server's list gains a tool, then loses it again.
		if i%2 == 0 {
			snap.Servers[0].Tools = grown
		} else {
			snap.Servers[0].Tools = hundredTools()
		}
		svc.shadowingAgain(&snap)
	}
}
