package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Search mode: for people with many servers, the gateway can offer apps two
// tools instead of hundreds — FindTool finds tools by words and CallTool
// calls one it found — so that an app's context holds a handful of tools.
// The person turns it on with "search": true in the gateway's settings
// (mcptray gateway search on). Permissions and hidden tools apply as in the
// full list: a hidden tool is never found, and a call through CallTool is
// allowed, asked about or blocked like a direct one.
const (
	// FindTool is the name of the tool that finds tools by words.
	FindTool = "find_tools"
	// CallTool is the name of the tool that calls a found tool.
	CallTool = "call_tool"
	// maxFound is how many tools one search returns at most.
	maxFound = 8
)

// searchIndex is the tools search mode searches, with where their calls go.
type searchIndex struct {
	tools  []mcp.Tool
	routes map[string]route // by qualified name
	text   []string         // each tool's name, title and description, lower-cased
}

func newSearchIndex(list []server.ServerTool, routes []route) *searchIndex {
	ix := &searchIndex{routes: make(map[string]route, len(list))}
	for i, st := range list {
		ix.tools = append(ix.tools, st.Tool)
		ix.routes[st.Tool.Name] = routes[i]
		ix.text = append(ix.text, strings.ToLower(st.Tool.Name+" "+st.Tool.Title+" "+st.Tool.Annotations.Title+" "+st.Tool.Description))
	}
	return ix
}

// find returns the tools whose text holds every word of query, those with
// the words in their name first; an empty query finds the first tools.
// With keep, only the tools whose route it keeps (the app's set, sets.go).
func (ix *searchIndex) find(query string, keep ...func(route) bool) (found []mcp.Tool, total int) {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		i, score int
	}
	var hits []hit
	for i, text := range ix.text {
		if r, ok := ix.routes[ix.tools[i].Name]; ok && len(keep) > 0 && !keep[0](r) {
			continue
		}
		score, all := 0, true
		name := strings.ToLower(ix.tools[i].Name)
		for _, w := range words {
			if !strings.Contains(text, w) {
				all = false
				break
			}
			if strings.Contains(name, w) {
				score++
			}
		}
		if all {
			hits = append(hits, hit{i, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	for _, h := range hits[:min(len(hits), maxFound)] {
		found = append(found, ix.tools[h.i])
	}
	return found, len(hits)
}

// searchTools are the two tools search mode offers instead of list.
func (g *Gateway) searchTools(list []server.ServerTool, routes []route) []server.ServerTool {
	ix := newSearchIndex(list, routes)
	find := mcp.NewTool(FindTool,
		mcp.WithDescription(fmt.Sprintf("Find tools among the %d tools of the MCP servers this person runs in mcptray, by words (for example: \"github issue\", \"read file\"). Returns up to %d tools with their names, descriptions and input schemas; call one with %s.", len(list), maxFound, CallTool)),
		mcp.WithString("query", mcp.Required(), mcp.Description("words the tool's name or description should contain")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	call := mcp.NewTool(CallTool,
		mcp.WithDescription(fmt.Sprintf("Call a tool that %s found, by its name, with arguments that follow its input schema.", FindTool)),
		mcp.WithString("name", mcp.Required(), mcp.Description("the tool's name as "+FindTool+" gave it, such as mcp__github__create_issue")),
		mcp.WithObject("arguments", mcp.Description("the tool's arguments, following its input schema")),
	)
	return []server.ServerTool{
		{Tool: find, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return ix.result(req.GetString("query", ""), g.keepsFor(ctx)...), nil
		}},
		{Tool: call, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := req.GetString("name", "")
			r, ok := ix.routes[name]
			if !ok {
				return mcp.NewToolResultError(fmt.Sprintf("there is no tool %q; use %s to find one", name, FindTool)), nil
			}
			inner := mcp.CallToolRequest{Request: req.Request}
			inner.Params.Name = name
			inner.Params.Meta = req.Params.Meta
			if args, ok := req.GetArguments()["arguments"]; ok && args != nil {
				inner.Params.Arguments = args
			}
			return g.call(r)(ctx, inner)
		}},
	}
}

// foundTool is one tool as FindTool describes it.
type foundTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// result is FindTool's answer to query: the tools found as JSON, with a
// line that says how many there were.
func (ix *searchIndex) result(query string, keep ...func(route) bool) *mcp.CallToolResult {
	found, total := ix.find(query, keep...)
	if total == 0 {
		return mcp.NewToolResultText(fmt.Sprintf("No tool matches %q. Try fewer or other words.", query))
	}
	out := make([]foundTool, len(found))
	for i, t := range found {
		out[i] = foundTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.RawInputSchema}
		if len(out[i].InputSchema) == 0 {
			out[i].InputSchema, _ = json.Marshal(t.InputSchema)
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("the tools could not be encoded: %v", err))
	}
	head := fmt.Sprintf("%d tools match %q", total, query)
	if total > len(found) {
		head += fmt.Sprintf("; the best %d follow (use more words to narrow them)", len(found))
	}
	head += fmt.Sprintf(". Call one with %s.", CallTool)
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(head), mcp.NewTextContent(string(b))}}
}
