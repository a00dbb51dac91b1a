// Package builtin is mcptray's own MCP server, run in-process: it lets an
// agent ask mcptray how its servers are doing.
//
// It only reads: it never changes a config, approves a server or shows a
// secret.
package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptray/mcptray/core/config"
)

// Name is the built-in server's name, which the config keeps free for it.
const Name = config.BuiltinName

// ServerState is what the status tool reports of one server.
type ServerState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	Tools int    `json:"tools"`
}

// New returns the server. status is called on every status call.
func New(version string, status func() []ServerState) *server.MCPServer {
	s := server.NewMCPServer(Name, version, server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("status",
		mcp.WithDescription("How each MCP server mcptray manages is doing: its state, its last error and how many tools it offers."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		states := status()
		var b strings.Builder
		for _, s := range states {
			fmt.Fprintf(&b, "%s: %s", s.Name, s.State)
			if s.Tools > 0 {
				fmt.Fprintf(&b, " (%d tools)", s.Tools)
			}
			if s.Error != "" {
				fmt.Fprintf(&b, " — %s", s.Error)
			}
			b.WriteByte('\n')
		}
		if b.Len() == 0 {
			b.WriteString("mcptray manages no servers yet.\n")
		}
		structured, _ := json.Marshal(map[string]any{"servers": states})
		res := mcp.NewToolResultText(b.String())
		res.StructuredContent = json.RawMessage(structured)
		return res, nil
	})
	return s
}
