package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mark3labs/mcp-go/mcp"
)

// question is a server's question with a colour (default green) and a
// count.
func question(msg string) mcp.ElicitationRequest {
	var req mcp.ElicitationRequest
	req.Params.Message = msg
	req.Params.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{
		"colour": map[string]any{"type": "string", "default": "green"},
		"count":  map[string]any{"type": "integer"},
	}}
	return req
}

// TestElicitAtTheTerminal: the answers typed for one question, fields in
// name order, Enter taking the default and a wrong number asked again; the
// next question reads the lines after them (all given at once, as a paste
// or a pipe gives them); !decline refuses.
func TestElicitAtTheTerminal(t *testing.T) {
	var errOut strings.Builder
	c := &cmdContext{Env: Env{Stdin: strings.NewReader("\nmany\n3\n!decline\n"), Stderr: &errOut, Interactive: true}}
	res, err := c.elicit(context.Background(), "paint", question("Which colour?"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != mcp.ElicitationResponseActionAccept {
		t.Fatalf("the first question was answered %q, want accept", res.Action)
	}
	got, _ := res.Content.(map[string]any)
	if got["colour"] != "green" || got["count"] != int64(3) {
		t.Errorf("the first question's answer = %v, want colour green (the default) and count 3", got)
	}
	if !strings.Contains(errOut.String(), `"many" is not a whole number; try again`) {
		t.Errorf("a wrong number was not asked again:\n%s", errOut.String())
	}
	res, err = c.elicit(context.Background(), "paint", question("And another?"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != mcp.ElicitationResponseActionDecline {
		t.Errorf("the second question was answered %q, want decline, the line after the first question's", res.Action)
	}
}

// TestElicitUnreadable: when the terminal cannot be read, the question is
// cancelled and the person is told why; at its end, it is cancelled
// quietly.
func TestElicitUnreadable(t *testing.T) {
	var errOut strings.Builder
	c := &cmdContext{Env: Env{Stdin: iotest.ErrReader(errors.New("input/output error")), Stderr: &errOut, Interactive: true}}
	res, err := c.elicit(context.Background(), "paint", question("Which colour?"))
	if err != nil || res.Action != mcp.ElicitationResponseActionCancel {
		t.Fatalf("elicit = %v, %v; want cancel", res, err)
	}
	if !strings.Contains(errOut.String(), "could not read your answer (input/output error)") {
		t.Errorf("the person is not told why:\n%s", errOut.String())
	}

	errOut.Reset()
	c = &cmdContext{Env: Env{Stdin: strings.NewReader(""), Stderr: &errOut, Interactive: true}}
	if res, err := c.elicit(context.Background(), "paint", question("Which colour?")); err != nil || res.Action != mcp.ElicitationResponseActionCancel {
		t.Fatalf("elicit at the input's end = %v, %v; want cancel", res, err)
	}
	if strings.Contains(errOut.String(), "could not read") {
		t.Errorf("the input's end is called an error:\n%s", errOut.String())
	}
}
