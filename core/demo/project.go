package demo

import (
	"encoding/json"
	"fmt"
)

// ServerName is the demo server's name in the project's .mcp.json.
const ServerName = "demo"

// Readme is the note the demo project folder holds, for a person who
// opens it.
const Readme = `mcptray's demo project

mcptray made this folder when you pressed "Try the demo". Its .mcp.json
names one server, "demo", which mcptray itself runs (mcptray demo-server).
It has three harmless tools: greet, roll_dice, and pick_colour, which asks
you a question in mcptray's window.

mcptray waits for your approval before it runs a project's server: press
Review… on "demo" in mcptray's window to see what it would run.

Remove this folder from mcptray's Settings when you are done (or with
mcptray folders remove), then delete it.
`

// MCPJSON is the demo project's .mcp.json: one server that runs command
// (mcptray's own program) with Arg.
func MCPJSON(command string) ([]byte, error) {
	type srv struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	b, err := json.MarshalIndent(map[string]any{
		"mcpServers": map[string]srv{ServerName: {Command: command, Args: []string{Arg}}},
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("writing the demo's .mcp.json: %w", err)
	}
	return append(b, '\n'), nil
}
