package service

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sets"
)

// TestSetsThroughTheService: a set is made of the servers mcptray has,
// counted in words, given to an app and made the tray's; a server it does
// not have, or a set that is not there, is refused in words, and the file
// keeps what was made.
func TestSetsThroughTheService(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"a": map[string]any{"command": testServerBin, "args": []string{"-name", "a"}},
		"b": map[string]any{"command": testServerBin, "args": []string{"-name", "b"}},
	}})
	keeper, err := sets.Open(sets.Path(h.paths))
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.Sets = keeper })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := s.PutSet(ctx, SetRequest{Name: "Work", Servers: []string{"a"}, Tools: []string{"b/echo"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Sets) != 1 || v.Sets[0].ServerCount != 2 || v.Sets[0].ToolCount < 2 ||
		!strings.HasPrefix(v.Sets[0].Words, "the Work set: 2 servers, ") {
		t.Errorf("the Work set: %+v", v.Sets)
	}
	var e *Error
	if _, err := s.PutSet(ctx, SetRequest{Name: "Home", Servers: []string{"ghost"}}); !errors.As(err, &e) || e.Code != NotFound || !strings.Contains(err.Error(), `no server called "ghost"`) {
		t.Errorf("a set of a server mcptray does not have: %v", err)
	}
	if _, err := s.GiveApp(ctx, GiveRequest{App: "cursor", Choice: "Home"}); !errors.As(err, &e) || e.Code != Invalid {
		t.Errorf("giving a set that is not there: %v", err)
	}
	if _, err := s.GiveApp(ctx, GiveRequest{App: "cursor", Choice: sets.Tray}); err != nil {
		t.Fatal(err)
	}
	v, err = s.SetTraySet(ctx, "Work")
	if err != nil {
		t.Fatal(err)
	}
	if v.Tray != "Work" || len(v.Sets[0].Apps) != 1 || v.Sets[0].Apps[0] != "cursor" {
		t.Errorf("after the tray's set: %+v", v)
	}
	back, err := sets.Read(sets.Path(h.paths))
	if err != nil || back.For("cursor", true).Name() != "the Work set" {
		t.Errorf("the file after the changes: %+v, %v", back, err)
	}
	if v, err = s.RemoveSet(ctx, "Work"); err != nil || len(v.Sets) != 0 || v.Tray != "" {
		t.Errorf("after removing the set: %+v, %v", v, err)
	}

	// A set that reads private data and can send it out says so when it
	// is made; one that only reads does not.
	yes := true
	if err := s.SetGuardLabels(ctx, "mcp__a__echo", config.LabelChange{Private: &yes}, false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetGuardLabels(ctx, "mcp__b__echo", config.LabelChange{Egress: &yes}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	v, err = s.PutSet(ctx, SetRequest{Name: "Reader", Tools: []string{"a/echo"}})
	if reader, _ := findSet(v, "Reader"); err != nil || reader.Warning != "" {
		t.Errorf("a set that only reads private data: %+v, %v", v.Sets, err)
	}
	v, err = s.PutSet(ctx, SetRequest{Name: "Leaky", Tools: []string{"a/echo", "b/echo"}})
	if err != nil {
		t.Fatal(err)
	}
	leaky, _ := findSet(v, "Leaky")
	if !strings.Contains(leaky.Warning, "reads private data (mcp__a__echo)") || !strings.Contains(leaky.Warning, "can send data out (mcp__b__echo)") {
		t.Errorf("the Leaky set's warning: %q", leaky.Warning)
	}
}

func findSet(v SetsView, name string) (SetView, bool) {
	for _, s := range v.Sets {
		if s.Name == name {
			return s, true
		}
	}
	return SetView{}, false
}
