// Command server is mcptray's demo MCP server: a few harmless tools, run
// from the demo project's .mcp.json with `go run ./server`, so that a
// person can see mcptray ask for approval, show tools, and ask a question
// on a server's behalf. It reads and writes nothing.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("mcptray-demo", "1.0.0", server.WithToolCapabilities(false))
	harmless := []mcp.ToolOption{
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	}
	s.AddTool(mcp.NewTool("greet", append(harmless,
		mcp.WithDescription("Says hello to someone."),
		mcp.WithString("name", mcp.Required(), mcp.Description("Who to greet")))...),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, err := req.RequireString("name")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText("Hello, " + name + "!"), nil
		})
	s.AddTool(mcp.NewTool("roll_dice", append(harmless,
		mcp.WithDescription("Rolls a six-sided die."))...),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprintf("You rolled a %d.", rand.IntN(6)+1)), nil
		})
	s.AddTool(mcp.NewTool("pick_colour", append(harmless,
		mcp.WithDescription("Asks you for your favourite colour (an MCP question, answered in mcptray's window)."))...),
		pickColour)
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "demo server:", err)
		os.Exit(1)
	}
}

// pickColour asks the person a question through their MCP client, and
// says what they answered.
func pickColour(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer := server.ElicitationResponse(req.Params.InputResponses, "colour"); answer != nil {
		b, _ := json.Marshal(answer.ElicitationResponse)
		return mcp.NewToolResultText("You answered: " + string(b)), nil
	}
	return server.NewInputRequestBuilder("").Elicit("colour", mcp.ElicitationParams{
		Message: "Which colour do you like best?",
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"colour": map[string]any{"type": "string", "title": "Colour", "enum": []string{"red", "green", "blue"}, "default": "green"},
				"shade":  map[string]any{"type": "string", "title": "Shade, in your words"},
				"light":  map[string]any{"type": "boolean", "title": "Light rather than dark", "default": true},
			},
			"required": []string{"colour"},
		},
	}).ToolResult(), nil
}
