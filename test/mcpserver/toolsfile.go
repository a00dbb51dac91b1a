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

// ReloadTool is the tool that reads Options.ToolsFile and
// Options.PromptsFile again, replacing the tools and prompts they added, and
// tells the client the lists changed: a server whose tools change while it
// runs, as an update or a rug pull does.
const ReloadTool = "reload_tools"

// FileTool is one tool of Options.ToolsFile: its definition as tools/list
// gives it, and a call answers with its name.
type FileTool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *FileAnnotations `json:"annotations,omitempty"`
}

// FileAnnotations are a FileTool's annotations.
type FileAnnotations struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
}

// WriteToolsFile writes tools to path as Options.ToolsFile reads them.
func WriteToolsFile(path string, tools ...FileTool) error {
	b, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// FilePrompt is one prompt of Options.PromptsFile: its definition as
// prompts/list gives it, and a get answers with its name.
type FilePrompt struct {
	Name        string               `json:"name"`
	Description string               `json:"description,omitempty"`
	Arguments   []mcp.PromptArgument `json:"arguments,omitempty"`
}

// WritePromptsFile writes prompts to path as Options.PromptsFile reads
// them.
func WritePromptsFile(path string, prompts ...FilePrompt) error {
	b, err := json.Marshal(prompts)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// addFiles adds the tools of opts.ToolsFile, the prompts of
// opts.PromptsFile, and ReloadTool, which reads both again.
func addFiles(s *server.MCPServer, opts Options) {
	var loads []func() error
	if opts.ToolsFile != "" {
		loads = append(loads, toolsLoader(s, opts))
	}
	if opts.PromptsFile != "" {
		// Its prompts come and go: it says so.
		server.WithPromptCapabilities(true)(s)
		loads = append(loads, promptsLoader(s, opts))
	}
	for _, load := range loads {
		if err := load(); err != nil {
			fmt.Fprintf(opts.stderr(), "%v\n", err)
		}
	}
	s.AddTool(mcp.NewTool(ReloadTool, mcp.WithDescription("Reads the tools and prompts files again.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for _, load := range loads {
				if err := load(); err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
			}
			return mcp.NewToolResultText("reloaded"), nil
		})
}

// promptsLoader reads opts.PromptsFile, replacing the prompts it added
// before (and telling the client).
func promptsLoader(s *server.MCPServer, opts Options) func() error {
	var mu sync.Mutex
	var names []string
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		b, err := os.ReadFile(opts.PromptsFile)
		if err != nil {
			return fmt.Errorf("prompts file: %w", err)
		}
		var list []FilePrompt
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("prompts file: reading %s: %w", opts.PromptsFile, err)
		}
		var add []server.ServerPrompt
		var next []string
		for _, fp := range list {
			text := "prompt " + fp.Name
			add = append(add, server.ServerPrompt{
				Prompt: mcp.Prompt{Name: fp.Name, Description: fp.Description, Arguments: fp.Arguments},
				Handler: func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return mcp.NewGetPromptResult(text, []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
				},
			})
			next = append(next, fp.Name)
		}
		if len(names) > 0 {
			s.DeletePrompts(names...)
		}
		s.AddPrompts(add...) // tells every client the list changed
		names = next
		return nil
	}
}

// toolsLoader reads opts.ToolsFile, replacing the tools it added before
// (and telling the client).
func toolsLoader(s *server.MCPServer, opts Options) func() error {
	var mu sync.Mutex
	var names []string
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		b, err := os.ReadFile(opts.ToolsFile)
		if err != nil {
			return fmt.Errorf("tools file: %w", err)
		}
		var list []FileTool
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("tools file: reading %s: %w", opts.ToolsFile, err)
		}
		var add []server.ServerTool
		var next []string
		for _, ft := range list {
			t := mcp.Tool{Name: ft.Name, Title: ft.Title, Description: ft.Description, RawInputSchema: ft.InputSchema, RawOutputSchema: ft.OutputSchema}
			if len(t.RawInputSchema) == 0 {
				t.RawInputSchema = json.RawMessage(`{"type":"object"}`)
			}
			if ft.Annotations != nil {
				t.Annotations.Title = ft.Annotations.Title
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
}
