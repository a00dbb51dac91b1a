package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// elicit asks the person at the terminal what a server wants to know, one
// field at a time, offering each default; with nobody at a terminal it
// answers with the schema's defaults. The answers are read as the
// command's other lines are (readLine), so that what one question does not
// read is there for the next.
func (c *cmdContext) elicit(ctx context.Context, server string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if !c.Interactive || c.Stdin == nil || req.Params.Mode == mcp.ElicitationModeURL {
		return service.AcceptDefaults(req), nil
	}
	schema, _ := req.Params.RequestedSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	defaults := service.SchemaDefaults(req.Params.RequestedSchema)
	// One question at a time: two would mix their prompts on the terminal
	// and share its lines.
	c.asking.Lock()
	defer c.asking.Unlock()
	fmt.Fprintf(c.Stderr, "\n%s asks: %s\n", sanitize.Line(server), sanitize.String(req.Params.Message))
	fmt.Fprintln(c.Stderr, "(press Enter to take the value in brackets; type !decline to refuse)")
	answer := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, _ := props[name].(map[string]any)
		typ, _ := p["type"].(string)
		for {
			prompt := sanitize.Line(name)
			if d, ok := defaults[name]; ok {
				prompt += fmt.Sprintf(" [%v]", d)
			}
			fmt.Fprintf(c.Stderr, "  %s: ", prompt)
			line, err := c.readLine()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(c.Stderr, "\n  could not read your answer (%v); the question is cancelled\n", err)
				}
				return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
			}
			text := strings.TrimSpace(line)
			if text == "!decline" {
				return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
			}
			if text == "" {
				if d, ok := defaults[name]; ok {
					answer[name] = d
				}
				break
			}
			v, err := typed(text, typ)
			if err != nil {
				fmt.Fprintf(c.Stderr, "  %v; try again\n", err)
				continue
			}
			answer[name] = v
			break
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: answer}}, nil
}

// typed reads text as a value of the schema type typ.
func typed(text, typ string) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("answer true or false")
		}
		return b, nil
	}
	return text, nil
}
