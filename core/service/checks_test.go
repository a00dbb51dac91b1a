package service

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestAddRefusesWhatNoFrontEndMayWrite: the name and URL checks are the
// service's, so Add refuses whoever asks (the window's paste and the
// catalogue reach it as the command line does), and the file is left as
// it was.
func TestAddRefusesWhatNoFrontEndMayWrite(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx := t.Context()
	before, _ := os.ReadFile(h.paths.UserFile())
	for _, tt := range []struct{ name, entry, want string }{
		{"notes", `{"url": "https://me:hunter2@notes.example/mcp"}`, "user name or password"},
		{"notes", `{"url": "https://me@notes.example/mcp"}`, "user name or password"},
		{"notes", `{"type": "ws", "url": "wss://me:pw@notes.example/mcp"}`, "user name or password"},
		{"notes", `{"url": "https://notes.example:99999/mcp"}`, "is not a port"},
		{"notes", `{"url": "https://notes.example/` + strings.Repeat("a", MaxURL) + `"}`, "characters long"},
		{" notes", `{"command": "notes"}`, "spaces at its ends"},
		{"no\u200btes", `{"command": "notes"}`, "invisible or control characters"},
		{"", `{"command": "notes"}`, "the name is empty"},
		{BuiltinName, `{"command": "notes"}`, "built-in server"},
	} {
		_, err := s.Add(ctx, AddRequest{Name: tt.name, Entry: json.RawMessage(tt.entry)})
		var serr *Error
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &serr) || serr.Code != Invalid {
			t.Errorf("Add(%q, %s): %v; want an Invalid error saying %q", tt.name, tt.entry, err, tt.want)
		}
		// What the window shows before it asks says the same.
		if _, err := ParseEntry(tt.name, json.RawMessage(tt.entry)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseEntry(%q, %s): %v; want an error saying %q", tt.name, tt.entry, err, tt.want)
		}
	}
	if after, _ := os.ReadFile(h.paths.UserFile()); string(after) != string(before) {
		t.Errorf("a refused Add changed %s:\n%s", h.paths.UserFile(), after)
	}
	if _, err := s.Add(ctx, AddRequest{Name: "notes", Entry: json.RawMessage(`{"url": "https://notes.example:8443/mcp"}`)}); err != nil {
		t.Errorf("a plain URL was refused: %v", err)
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]Transport{"https://a.example/mcp": HTTP, "http://127.0.0.1:8080/mcp": HTTP, "wss://a.example/ws": WebSocket} {
		if got, err := CheckURL(raw); err != nil || got != want {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"ftp://a.example", "a.example", "https://u:p@a.example/mcp"} {
		if _, err := CheckURL(raw); err == nil {
			t.Errorf("CheckURL(%q) took it", raw)
		}
	}
}
