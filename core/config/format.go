package config

import "fmt"

// Format is the shape of a config file.
type Format int

const (
	// MCPServers is {"mcpServers": {name: server}}, used by Claude Desktop,
	// Cursor, .mcp.json, plugins and mcptray's own files.
	MCPServers Format = iota
	// VSCode is VS Code's mcp.json: {"servers": {name: server}, "inputs": […]}.
	VSCode
	// ClaudeCode is ~/.claude.json: a top-level "mcpServers" plus
	// "projects": {path: {"mcpServers": …}} for each project.
	ClaudeCode
)

func (f Format) String() string {
	switch f {
	case MCPServers:
		return "mcpServers"
	case VSCode:
		return "vscode"
	case ClaudeCode:
		return "claude-code"
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// serversKey is the top-level key that holds the servers.
func (f Format) serversKey() string {
	if f == VSCode {
		return "servers"
	}
	return "mcpServers"
}
