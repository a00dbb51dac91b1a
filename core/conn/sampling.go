package conn

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
)

// samplingHandler passes a server's request to the AI model
// (sampling/createMessage) to the app whose call caused it, when that app
// can answer (a Caller with Sample). mcptray has no model of its own, so
// otherwise the person may answer it in the model's stead, through the
// front end's ElicitFunc; with nobody to ask, or when the person does not
// answer, the request is refused in words the server may show.
type samplingHandler struct {
	m      *Manager
	server string
}

// ErrNoSampler is the refusal of a server's request to the AI model when
// no app can answer it.
var ErrNoSampler = errors.New("no app that can answer this server's request to the AI model is connected; " +
	"use the server from an AI app that supports sampling, through mcptray's gateway, and ask again")

// errNotAnswered is the refusal when the person was asked and gave no
// answer (or could not be asked after all).
var errNotAnswered = errors.New("no app that can answer this server's request to the AI model is connected, " +
	"and nobody answered it in mcptray's window; ask again from an AI app that supports sampling, or answer it in the window")

func (h samplingHandler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if c := h.m.calls.callerFor(ctx, h.server); c != nil && c.Sample != nil {
		res, err := c.Sample(ctx, req)
		if !errors.Is(err, ErrCallerCannot) {
			return res, err
		}
	}
	if h.m.opts.Elicit == nil {
		return nil, ErrNoSampler
	}
	ans, err := h.m.opts.Elicit(ctx, h.server, samplingQuestion(h.server, req))
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w (%v)", ErrNoSampler, err)
	}
	content, _ := ans.Content.(map[string]any)
	reply, _ := content[replyField].(string)
	if ans.Action != mcp.ElicitationResponseActionAccept || strings.TrimSpace(reply) == "" {
		return nil, errNotAnswered
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(reply)},
		Model:           PersonModel,
		StopReason:      "endTurn",
	}, nil
}

// PersonModel is the model named in an answer the person wrote in the AI
// model's stead.
const PersonModel = "mcptray: answered by a person"

// replyField is the field of the question that holds the person's reply.
const replyField = "reply"

// LongTextKey marks a string property of a question whose answer may take
// several lines, such as the person's answer in the AI model's stead: the
// window shows a box of several lines for it. (A server that sets it gets
// no more than that bigger box.)
const LongTextKey = "x-mcptray-long-text"

// maxSamplingText bounds how much of a request to the AI model the
// person is shown.
const maxSamplingText = 4000

// samplingQuestion is a server's request to the AI model as a question to
// the person: what the server asks the model, and a box for the reply.
func samplingQuestion(server string, req mcp.CreateMessageRequest) mcp.ElicitationRequest {
	var b strings.Builder
	fmt.Fprintf(&b, "%s wants an answer from the AI model, and no app that can give one is connected. You may write the answer yourself.\n", sanitize.Line(server))
	if p := strings.TrimSpace(req.SystemPrompt); p != "" {
		fmt.Fprintf(&b, "\nInstructions for the model: %s\n", p)
	}
	for _, m := range req.Messages {
		who := "The server"
		if m.Role == mcp.RoleAssistant {
			who = "The model"
		}
		fmt.Fprintf(&b, "\n%s: %s\n", who, samplingText(m.Content))
	}
	msg := sanitize.String(b.String())
	if r := []rune(msg); len(r) > maxSamplingText {
		msg = string(r[:maxSamplingText]) + "…"
	}
	return mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params: mcp.ElicitationParams{
			Message: msg,
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					replyField: map[string]any{"type": "string", "title": "Your answer", LongTextKey: true},
				},
				"required": []any{replyField},
			},
		},
	}
}

// samplingText is the text of a message's content; what is not text is
// named.
func samplingText(content any) string {
	switch c := content.(type) {
	case mcp.TextContent:
		return c.Text
	case mcp.ImageContent:
		return "(an image)"
	case mcp.AudioContent:
		return "(a sound)"
	case []mcp.Content:
		parts := make([]string, 0, len(c))
		for _, p := range c {
			parts = append(parts, samplingText(p))
		}
		return strings.Join(parts, " ")
	}
	return "(something other than text)"
}
