package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
)

// TestGatewaySearchMode: with search on, an app sees two tools; find_tools
// finds a server's tool by words, call_tool calls it, and permissions and
// hidden tools hold as in the full list. Turning search off brings the full
// list back.
func TestGatewaySearchMode(t *testing.T) {
	t.Parallel()
	r := newRigWith(t, nil, map[string]any{
		"permissions": map[string]string{"mcp__a__add": "block"},
		"hidden":      []string{"mcp__a__crash"},
	})
	setSearch := func(on bool) {
		t.Helper()
		err := config.ModifyUserFile(r.paths.UserFile(), func(u *config.UserFile) error {
			rules, err := u.GatewayRules()
			rules.Search = on
			if err == nil {
				err = u.SetGatewayRules(rules)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	setSearch(true)
	r.waitTool(FindTool)

	c := r.client()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != CallTool+" "+FindTool { // sorted by name
		t.Fatalf("in search mode the gateway lists %v, want only %s and %s", names, FindTool, CallTool)
	}

	got, isErr := callText(t, c, FindTool, map[string]any{"query": "ECHO"})
	if isErr || !strings.Contains(got, `"name": "mcp__a__echo"`) || !strings.Contains(got, `"inputSchema"`) {
		t.Errorf("finding echo: %q (error %v)", got, isErr)
	}
	if got, _ := callText(t, c, FindTool, map[string]any{"query": "crash"}); strings.Contains(got, "mcp__a__crash") {
		t.Errorf("a hidden tool was found: %q", got)
	}
	if got, _ := callText(t, c, FindTool, map[string]any{"query": "no such words anywhere"}); !strings.Contains(got, "No tool matches") {
		t.Errorf("finding nothing: %q", got)
	}

	got, isErr = callText(t, c, CallTool, map[string]any{"name": "mcp__a__echo", "arguments": map[string]any{"text": "through search"}})
	if isErr || !strings.Contains(got, "through search") {
		t.Errorf("calling echo through %s: %q (error %v)", CallTool, got, isErr)
	}
	got, isErr = callText(t, c, CallTool, map[string]any{"name": "mcp__a__add", "arguments": map[string]any{"a": 1, "b": 2}})
	if !isErr || !strings.Contains(got, "mcptray blocks mcp__a__add") {
		t.Errorf("a blocked tool through %s: %q (error %v)", CallTool, got, isErr)
	}
	got, isErr = callText(t, c, CallTool, map[string]any{"name": "mcp__a__crash"})
	if !isErr || !strings.Contains(got, "there is no tool") {
		t.Errorf("a hidden tool through %s: %q (error %v)", CallTool, got, isErr)
	}

	setSearch(false)
	r.waitTool("mcp__a__echo")
	if r.gw.MCPServer().GetTool(FindTool) != nil {
		t.Errorf("%s is still offered with search off", FindTool)
	}
}

// TestSearchIndexRanks: every word must match; a word in the name ranks a
// tool above one that has it only in its description, and at most maxFound
// come back.
func TestSearchIndexRanks(t *testing.T) {
	var list []mcp.Tool
	list = append(list, mcp.NewTool("mcp__x__list", mcp.WithDescription("lists the issues of a repository")))
	list = append(list, mcp.NewTool("mcp__x__create_issue", mcp.WithDescription("opens a new one")))
	for i := range maxFound + 3 {
		list = append(list, mcp.NewTool("mcp__y__t"+strings.Repeat("x", i), mcp.WithDescription("a filler tool")))
	}
	ix := &searchIndex{routes: map[string]route{}}
	for _, tool := range list {
		ix.tools = append(ix.tools, tool)
		ix.text = append(ix.text, strings.ToLower(tool.Name+" "+tool.Description))
	}
	found, total := ix.find("issue")
	if total != 2 || found[0].Name != "mcp__x__create_issue" {
		t.Errorf("issue: %d found, first %q; want 2, mcp__x__create_issue first", total, found[0].Name)
	}
	if _, total := ix.find("issue filler"); total != 0 {
		t.Errorf("two words that no one tool has matched %d tools", total)
	}
	if found, total := ix.find("filler"); total != maxFound+3 || len(found) != maxFound {
		t.Errorf("filler: %d of %d returned, want %d of %d", len(found), total, maxFound, maxFound+3)
	}
}
