package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestServeAnswersOverStdio speaks MCP to the demo server as a client
// does: initialize, then tools/list and a call of greet.
func TestServeAnswersOverStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, inR, outW, io.Discard); outW.Close() }()
	lines := bufio.NewScanner(outR)
	ask := func(msg string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatalf("writing %s: %v", msg, err)
		}
		if !strings.Contains(msg, `"id"`) {
			return nil
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s: %v", msg, lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("answer %s: %v", lines.Bytes(), err)
		}
		return m
	}
	init := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if name, _ := init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"].(string); name != "mcptray-demo" {
		t.Fatalf("initialize answered %v", init)
	}
	ask(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var names []string
	for _, tool := range list["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, ","); got != "greet,pick_colour,roll_dice" {
		t.Errorf("tools = %s, want greet,pick_colour,roll_dice", got)
	}
	call := ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	if b, _ := json.Marshal(call); !strings.Contains(string(b), "Hello, Ada!") {
		t.Errorf("greet answered %s", b)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestMCPJSONRunsTheCommand: the project's file names the given program
// with the hidden argument, quoted as JSON (a Windows path's backslashes).
func TestMCPJSONRunsTheCommand(t *testing.T) {
	b, err := MCPJSON(`C:\Program Files\mcptray\mcptray.exe`)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	s := doc.MCPServers[ServerName]
	if s.Command != `C:\Program Files\mcptray\mcptray.exe` || len(s.Args) != 1 || s.Args[0] != Arg {
		t.Errorf(".mcp.json = %s", b)
	}
}
