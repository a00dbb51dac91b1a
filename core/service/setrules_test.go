package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sets"
)

// TestSetSingleToolsAreChecked: a set naming a tool its connected server
// does not have is refused in words, naming the tools it has; one of a
// server not connected now is taken, with a warning saying it could not
// be checked.
func TestSetSingleToolsAreChecked(t *testing.T) {
	t.Parallel()
	s, ctx := startWithSets(t)
	var e *Error
	_, err := s.PutSet(ctx, SetRequest{Name: "Work", Tools: []string{"a/delete_everything"}})
	if !errors.As(err, &e) || e.Code != Invalid || !strings.Contains(err.Error(), `the server a has no tool called "delete_everything" (its tools: `) ||
		!strings.Contains(err.Error(), "add, ask") {
		t.Errorf("a tool its connected server does not have: %v", err)
	}
	if c := s.opts.Sets.Choices(); len(c.Sets) != 0 {
		t.Errorf("a refused set was kept: %+v", c.Sets)
	}
	v, err := s.PutSet(ctx, SetRequest{Name: "Work", Tools: []string{"a/echo", "off/send"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], `off is not connected now, so mcptray could not check that it has a tool called "send"`) {
		t.Errorf("the warning of a server not connected: %q", v.Warnings)
	}
	if w, _ := findSet(v, "Work"); !slices.Equal(w.Tools, []string{"a/echo", "off/send"}) {
		t.Errorf("the set kept: %+v", w.Set)
	}
	// The same checks hold for the tools its rules name.
	if _, err := s.PutSet(ctx, SetRequest{Name: "Work", KeepContent: true, Rules: &SetRules{Hide: []string{"a/nope"}}}); !errors.As(err, &e) || e.Code != Invalid {
		t.Errorf("hiding a tool its connected server does not have: %v", err)
	}
	if _, err := s.PutSet(ctx, SetRequest{Name: "Work", KeepContent: true, Rules: &SetRules{Permissions: map[string]config.Permission{"ghost/x": config.Allow}}}); !errors.As(err, &e) || e.Code != NotFound {
		t.Errorf("allowing a tool of a server mcptray does not have: %v", err)
	}
}

// TestSetRulesAndRename: a set's own permissions and hiding, written
// SERVER/TOOL, are kept by the gateway's names; a change of its rules
// alone keeps what it holds; a rename keeps the apps and the tray that had
// it; "" drops its own permission, and Replace drops them all.
func TestSetRulesAndRename(t *testing.T) {
	t.Parallel()
	s, ctx := startWithSets(t)
	if _, err := s.PutSet(ctx, SetRequest{Name: "Work", Servers: []string{"a"}, Tools: []string{"b/echo"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GiveApp(ctx, GiveRequest{App: "cursor", Choice: "Work"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetTraySet(ctx, "Work"); err != nil {
		t.Fatal(err)
	}
	v, err := s.PutSet(ctx, SetRequest{Name: "Writing", From: "Work", KeepContent: true, Rules: &SetRules{
		Permissions: map[string]config.Permission{"a/echo": config.Allow, "b/echo": config.Block},
		Hide:        []string{"a/roots", "b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := findSet(v, "Writing")
	if !ok || v.Tray != "Writing" || v.Apps["cursor"] != "Writing" || len(v.Sets) != 1 {
		t.Fatalf("after the rename: %+v", v)
	}
	if !slices.Equal(w.Servers, []string{"a"}) || !slices.Equal(w.Tools, []string{"b/echo"}) ||
		w.Permissions["mcp__a__echo"] != config.Allow || w.Permissions["mcp__b__echo"] != config.Block ||
		!slices.Equal(w.Hidden, []string{"b", "mcp__a__roots"}) {
		t.Errorf("the renamed set's rules: %+v", w.Set)
	}
	back, err := sets.Read(sets.Path(s.opts.Paths))
	if err != nil || back.For("cursor", true).Name() != "the Writing set" {
		t.Errorf("the file after the rename: %+v, %v", back, err)
	}
	v, err = s.PutSet(ctx, SetRequest{Name: "Writing", KeepContent: true, Rules: &SetRules{
		Permissions: map[string]config.Permission{"a/echo": ""}, Show: []string{"b"},
	}})
	if w, _ = findSet(v, "Writing"); err != nil || len(w.Permissions) != 1 || !slices.Equal(w.Hidden, []string{"mcp__a__roots"}) {
		t.Errorf("after dropping one permission and showing b: %+v, %v", w.Set, err)
	}
	v, err = s.PutSet(ctx, SetRequest{Name: "Writing", Servers: []string{"a", "b"}, Rules: &SetRules{Replace: true}})
	if w, _ = findSet(v, "Writing"); err != nil || w.Permissions != nil || w.Hidden != nil || len(w.Tools) != 0 {
		t.Errorf("after replacing the rules with none: %+v, %v", w.Set, err)
	}
	var e *Error
	if _, err := s.PutSet(ctx, SetRequest{Name: "Home", From: "Ghost", KeepContent: true}); !errors.As(err, &e) || !strings.Contains(err.Error(), `no set called "Ghost"`) {
		t.Errorf("renaming a set that is not there: %v", err)
	}
	if _, err := s.PutSet(ctx, SetRequest{Name: "Home", KeepContent: true, Rules: &SetRules{Permissions: map[string]config.Permission{"a/echo": "maybe"}}}); err == nil ||
		!strings.Contains(err.Error(), "allow, ask or block") {
		t.Errorf("a permission that is no permission: %v", err)
	}
}

// startWithSets starts a service keeping sets, with servers a and b
// connected and off turned off, settled.
func startWithSets(t *testing.T) (*Service, context.Context) {
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"a":   map[string]any{"command": testServerBin, "args": []string{"-name", "a"}},
		"b":   map[string]any{"command": testServerBin, "args": []string{"-name", "b"}},
		"off": map[string]any{"command": testServerBin, "args": []string{"-name", "off"}, "disabled": true},
	}})
	keeper, err := sets.Open(sets.Path(h.paths))
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.Sets = keeper })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	if _, err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	return s, ctx
}
