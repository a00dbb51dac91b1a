package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Arg is the hidden command that runs the demo server on stdin and stdout:
// "mcptray demo-server".
const Arg = "demo-server"

// NewServer returns the demo server: greet, roll_dice and pick_colour,
// each marked as reading nothing and touching nothing outside.
func NewServer() *server.MCPServer {
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
	return s
}

// Serve runs the demo server over in and out until in ends or ctx is
// done. Its own complaints go to errw.
func Serve(ctx context.Context, in io.Reader, out, errw io.Writer) error {
	s := server.NewStdioServer(NewServer())
	s.SetErrorLogger(log.New(errw, "demo server: ", 0))
	if err := s.Listen(ctx, in, out); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serving the demo on stdio: %w", err)
	}
	return nil
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
