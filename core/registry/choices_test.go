package registry_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/registry"
	"github.com/mcptray/mcptray/core/registry/registrytest"
)

// TestChoices: an entry's packages and remotes are numbered in order, the
// ones mcptray cannot use say why, and Want narrows them.
func TestChoices(t *testing.T) {
	t.Parallel()
	d := example(t, registrytest.Several)
	all := registry.Choices(d)
	var labels []string
	for _, c := range all {
		labels = append(labels, c.Label)
	}
	want := []string{"npm package @example/notes-mcp, run with npx", "MCP Bundle https://example.com/notes.mcpb",
		"oci package ghcr.io/example/notes-mcp, run with docker", "remote at https://notes.example.com/mcp", "remote at https://notes.example.com/sse (SSE)"}
	if strings.Join(labels, "|") != strings.Join(want, "|") || all[1].Unusable == "" || all[4].Number != 5 || !all[4].Remote {
		t.Fatalf("Choices = %+v", all)
	}

	numbers := func(w registry.Want) string {
		t.Helper()
		cs, err := registry.Candidates(d, w)
		if err != nil {
			return "error: " + err.Error()
		}
		var out []string
		for _, c := range cs {
			out = append(out, string(rune('0'+c.Number)))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		want registry.Want
		got  string
	}{
		{registry.Want{}, "1,3,4,5"},
		{registry.Want{Prefer: registry.PreferLocal}, "1,3"},
		{registry.Want{Prefer: registry.PreferRemote}, "4,5"},
		{registry.Want{Runtime: "docker"}, "3"},
		{registry.Want{Number: 5}, "5"},
		{registry.Want{Runtime: "uvx"}, "error: io.github.example/notes has no package that runs with uvx"},
		{registry.Want{Runtime: "bunx"}, `error: "bunx" is not a runtime`},
		{registry.Want{Number: 2}, "error: mcptray cannot use way 2 of io.github.example/notes (MCP Bundle https://example.com/notes.mcpb): its MCP Bundle (mcpb) package gives no fileSha256"},
		{registry.Want{Number: 9}, "error: io.github.example/notes offers 5 ways to run it; 9 is not one of them"},
		{registry.Want{Number: 4, Prefer: registry.PreferLocal}, "error: way 4 of io.github.example/notes is the remote"},
	} {
		if got := numbers(tc.want); !strings.HasPrefix(got, tc.got) {
			t.Errorf("Candidates(%+v) = %q, want %q…", tc.want, got, tc.got)
		}
	}
	if _, err := registry.Candidates(example(t, registrytest.MCPB), registry.Want{}); err == nil || !strings.Contains(err.Error(), "mcptray cannot install") {
		t.Errorf("an entry with nothing usable: %v", err)
	}

	cs, _ := registry.Candidates(d, registry.Want{})
	docker := func(rt string) bool { return rt == "docker" }
	if c := registry.Default(cs, docker); c.Number != 3 {
		t.Errorf("Default with docker installed = %d, want the OCI image", c.Number)
	}
	if c := registry.Default(cs, func(string) bool { return false }); c.Number != 4 {
		t.Errorf("Default with no runtime = %d, want the first remote", c.Number)
	}
	local, _ := registry.Candidates(d, registry.Want{Prefer: registry.PreferLocal})
	if c := registry.Default(local, func(string) bool { return false }); c.Number != 1 {
		t.Errorf("Default among packages with no runtime = %d, want the first", c.Number)
	}
}

// TestPlanFor: each way of an entry plans its own entry.
func TestPlanFor(t *testing.T) {
	t.Parallel()
	d := example(t, registrytest.Several)
	all := registry.Choices(d)
	entryOf := func(c registry.Choice, values map[string]string) map[string]any {
		t.Helper()
		p, err := registry.PlanFor(d, c, values)
		if err != nil {
			t.Fatalf("PlanFor(%d): %v", c.Number, err)
		}
		var e map[string]any
		json.Unmarshal(p.Entry(), &e)
		return e
	}
	if e := entryOf(all[2], map[string]string{"NOTES_TOKEN": "t"}); e["command"] != "docker" {
		t.Errorf("way 3 = %v", e)
	}
	if e := entryOf(all[4], nil); e["type"] != "sse" || e["url"] != "https://notes.example.com/sse" {
		t.Errorf("way 5 = %v", e)
	}
	fields, err := registry.FieldsFor(d, all[3])
	if err != nil || len(fields) != 1 || fields[0].Key != "Authorization" || !fields[0].Secret {
		t.Errorf("FieldsFor(4) = %+v, %v", fields, err)
	}
	if _, err := registry.PlanFor(d, all[1], nil); err == nil {
		t.Error("an mcpb package was planned")
	}
	// Only the number counts: a Choice read back from JSON plans the same.
	if e := entryOf(registry.Choice{Number: 5}, nil); e["url"] != "https://notes.example.com/sse" {
		t.Errorf("way 5 by number = %v", e)
	}
	// MakePlan still takes the first package it can run.
	if p, err := registry.MakePlan(d, registry.PreferAny, map[string]string{"NOTES_TOKEN": "t"}); err != nil || p.Runtime != "npx" {
		t.Errorf("MakePlan = %+v, %v", p, err)
	}
}
