package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ReloadTool is the tool that reads Options.ToolsFile again, replacing the
// tools it added, and tells the client the list changed: a server whose
// tools change while it runs, as an update or a rug pull does.
const ReloadTool = "reload_tools"

// FileTool is one tool of Options.ToolsFile: its definition as tools/list
// gives it, and a call answers with its name.
type FileTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *struct {
		ReadOnly    *bool `json:"readOnlyHint,omitempty"`
		Destructive *bool `json:"destructiveHint,omitempty"`
	} `json:"annotations,omitempty"`
}

// WriteToolsFile writes tools to path as Options.ToolsFile reads them.
func WriteToolsFile(path string, tools ...FileTool) error {
	b, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// addToolsFile adds the tools of opts.ToolsFile and ReloadTool.
func addToolsFile(s *server.MCPServer, opts Options) {
	var mu sync.Mutex
	var names []string
	load := func() error {
		mu.Lock()
		defer mu.Unlock()
		b, err := os.ReadFile(opts.ToolsFile)
		if err != nil {
			return err
		}
		var list []FileTool
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("reading %s: %w", opts.ToolsFile, err)
		}
		var add []server.ServerTool
		var next []string
		for _, ft := range list {
			t := mcp.Tool{Name: ft.Name, Title: ft.Title, Description: ft.Description, RawInputSchema: ft.InputSchema, RawOutputSchema: ft.OutputSchema}
			if len(t.RawInputSchema) == 0 {
				t.RawInputSchema = json.RawMessage(`{"type":"object"}`)
			}
			if ft.Annotations != nil {
				t.Annotations.ReadOnlyHint = ft.Annotations.ReadOnly
				t.Annotations.DestructiveHint = ft.Annotations.Destructive
			}
			add = append(add, server.ServerTool{Tool: t, Handler: textTool("called " + ft.Name)})
			next = append(next, ft.Name)
		}
		if len(names) > 0 {
			s.DeleteTools(names...)
		}
		s.AddTools(add...) // tells every client the list changed
		names = next
		return nil
	}
	if err := load(); err != nil {
		fmt.Fprintf(opts.stderr(), "tools file: %v\n", err)
	}
	s.AddTool(mcp.NewTool(ReloadTool, mcp.WithDescription("Reads the tools file again.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := load(); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText("reloaded"), nil
		})
}
