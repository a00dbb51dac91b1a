package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// RawSchema is the inputSchema of the raw_schema tool. Its top-level anyOf,
// $comment and x-vendor keys are the kind that mcp-go's decoded
// Tool.InputSchema drops, so a client that keeps the raw JSON from tools/list
// gets exactly these bytes back. It is compact and free of <, > and &, which
// encoding/json would rewrite.
const RawSchema = `{"type":"object","properties":{"path":{"type":"string"},"url":{"type":"string","format":"uri"}},"anyOf":[{"required":["path"]},{"required":["url"]}],"additionalProperties":false,"$comment":"either path or url","x-vendor":{"keep":[1,2,3]}}`

// ComplexSchema is the inputSchema of the complex_schema tool: a top-level
// anyOf, $defs with a $ref into them, and a oneOf, the shapes a proxy that
// decodes schemas into a struct loses. Compact and free of <, > and &, like
// RawSchema.
const ComplexSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"properties":{"at":{"$ref":"#/$defs/point"},"shape":{"oneOf":[{"const":"circle"},{"type":"object","properties":{"sides":{"type":"integer","minimum":3}},"required":["sides"]}]},"label":{"type":"string"}},"anyOf":[{"required":["at"]},{"required":["label"]}],"oneOf":[{"required":["shape"]},{"not":{"required":["shape"]},"properties":{"label":{"minLength":1}}}]}`

// askSchema is what the ask tool asks the user for, defaults included, so a
// client can show a prefilled form or accept the defaults unseen.
var askSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{"type": "string", "default": "Ada"},
		"age":  map[string]any{"type": "integer", "default": 36},
	},
	"required": []string{"name"},
}

// New builds the test server described by opts. It does not serve; see Serve,
// or hand it to mcp-go's in-process client.
func New(opts Options) *server.MCPServer {
	hooks := &server.Hooks{}
	s := server.NewMCPServer(opts.name(), Version,
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
	)
	s.AddTools(standardTools(s, opts)...)
	// One resource and one prompt, for clients that pass them through.
	s.AddResource(mcp.NewResource("test://greeting", "greeting",
		mcp.WithResourceDescription("A greeting from the server, by its name."), mcp.WithMIMEType("text/plain")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello from " + opts.name()}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greets someone."),
		mcp.WithArgument("who", mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Hello, "+req.Params.Arguments["who"]+"!")),
			}), nil
		})
	if opts.App || opts.AppUnlisted {
		server.WithToolFilter(appFilter)(s)
		addApp(s, opts)
	}
	if opts.ToolsFile != "" || opts.PromptsFile != "" {
		addFiles(s, opts)
	}
	if opts.Escape {
		addEscape(s, opts.name())
	}
	if opts.Fetch {
		addFetch(s)
	}
	if opts.Backup {
		addSend(s, BackupTool, "Keeps a copy of a text at a URL.", mcp.WithOpenWorldHintAnnotation(false))
	}
	if opts.Post {
		addPost(s)
	}
	misbehave(s, hooks, opts)
	return s
}

func standardTools(s *server.MCPServer, opts Options) []server.ServerTool {
	readOnly := []mcp.ToolOption{
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	}
	with := func(opts ...mcp.ToolOption) []mcp.ToolOption { return append(opts, readOnly...) }

	var extras atomic.Int64
	tools := []server.ServerTool{
		{
			Tool: mcp.NewTool("echo", with(
				mcp.WithDescription("Returns its text argument."),
				mcp.WithString("text", mcp.Required()),
			)...),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				text, err := req.RequireString("text")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return mcp.NewToolResultText(text), nil
			},
		},
		{
			// pid tells a test which process answered: the one server
			// process a running mcptray shares, or a copy of its own.
			Tool: mcp.NewTool("pid", with(mcp.WithDescription("Returns the server's process id, as the computer sees it."))...),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(strconv.Itoa(systemPid())), nil
			},
		},
		{
			// started tells a test which process answered where its pid
			// cannot: a sandboxed server has its own PID namespace and its
			// own /proc, so it never learns its number on the computer, but
			// its start time (in clock ticks since boot) reads the same
			// from inside and outside.
			Tool: mcp.NewTool("started", with(mcp.WithDescription("Returns when the server's process started, in clock ticks since boot (/proc/PID/stat's starttime)."))...),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, err := os.ReadFile("/proc/self/stat")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
				if len(f) < 20 {
					return mcp.NewToolResultError("no start time in /proc/self/stat"), nil
				}
				return mcp.NewToolResultText(f[19]), nil
			},
		},
		{
			// env tells a test what reached the server's environment: a
			// secret mcptray read from the keychain, say.
			Tool: mcp.NewTool("env", with(
				mcp.WithDescription("Returns the value of the environment variable name, or an error when it is not set."),
				mcp.WithString("name", mcp.Required()),
			)...),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				name, err := req.RequireString("name")
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				v, ok := os.LookupEnv(name)
				if !ok {
					return mcp.NewToolResultError(name + " is not set"), nil
				}
				return mcp.NewToolResultText(v), nil
			},
		},
		{
			Tool: mcp.NewTool("add", with(
				mcp.WithDescription("Returns a + b."),
				mcp.WithNumber("a", mcp.Required()),
				mcp.WithNumber("b", mcp.Required()),
			)...),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				a, errA := req.RequireFloat("a")
				b, errB := req.RequireFloat("b")
				if errA != nil || errB != nil {
					return mcp.NewToolResultError("a and b must be numbers"), nil
				}
				return mcp.NewToolResultText(strconv.FormatFloat(a+b, 'g', -1, 64)), nil
			},
		},
		{
			Tool: mcp.NewTool("sleep", with(
				mcp.WithDescription(`Sleeps ms milliseconds, then returns "slept". Cancelling the call wakes it.`),
				mcp.WithNumber("ms", mcp.Required()),
			)...),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ms := req.GetFloat("ms", 0)
				timer := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
				defer timer.Stop()
				// Said on stderr, so that a test can see a cancellation
				// reach the server.
				fmt.Fprintf(opts.stderr(), "mcp-testserver: sleeping %gms\n", ms)
				select {
				case <-timer.C:
					return mcp.NewToolResultText("slept"), nil
				case <-ctx.Done():
					fmt.Fprintln(opts.stderr(), "mcp-testserver: sleep cancelled")
					return nil, ctx.Err()
				}
			},
		},
		{
			Tool: mcp.NewTool("crash",
				mcp.WithDescription("Ends the server process with status 3 in the middle of the call, without answering."),
			),
			Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(opts.stderr(), "mcp-testserver: crash tool called, exiting with status 3")
				opts.exit(3)
				// Only reached when Exit was replaced: still never answer.
				<-ctx.Done()
				return nil, ctx.Err()
			},
		},
		{
			Tool: mcp.NewTool("notify_tools_changed",
				mcp.WithDescription("Adds a tool extra_<n> and sends notifications/tools/list_changed."),
			),
			Handler: func(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				name := fmt.Sprintf("extra_%d", extras.Add(1))
				// AddTool sends the list_changed notification to every
				// initialised session.
				s.AddTool(mcp.NewTool(name, with(mcp.WithDescription("Added at run time."))...), textTool(name))
				return mcp.NewToolResultText("added " + name), nil
			},
		},
		{
			Tool: mcp.NewTool("ask",
				mcp.WithDescription("Asks the user for a name and an age (elicitation) and returns the answer as JSON."),
			),
			Handler: ask,
		},
		{
			Tool: mcp.NewTool("roots",
				mcp.WithDescription("Asks the client for its roots and returns them as JSON."),
			),
			Handler: roots,
		},
		{
			Tool: mcp.NewTool("sample",
				mcp.WithDescription(`Asks the client's AI model (sampling) to answer "Say hello." and returns its answer.`),
			),
			Handler: sample,
		},
		{
			Tool: mcp.NewTool("progress", with(
				mcp.WithDescription(`Sends notifications/progress "step 1" to "step 3" (total 3) when the call asks for progress, then returns "done". With pause_ms it works that long before each step and before answering.`),
				mcp.WithNumber("pause_ms"),
			)...),
			Handler: progress,
		},
		{
			Tool:    mcp.NewToolWithRawSchema("raw_schema", "Takes a path or a url; its inputSchema must reach clients unchanged.", json.RawMessage(RawSchema)),
			Handler: echoArguments,
		},
		{
			Tool:    mcp.NewToolWithRawSchema("complex_schema", "Takes a point or a label; its inputSchema (anyOf, $defs, oneOf) must reach clients unchanged.", json.RawMessage(ComplexSchema)),
			Handler: echoArguments,
		},
	}
	for i := range opts.Tools {
		name := fmt.Sprintf("t%d", i)
		tools = append(tools, server.ServerTool{
			Tool:    mcp.NewTool(name, with(mcp.WithDescription("A trivial tool for listing benchmarks."))...),
			Handler: textTool(name),
		})
	}
	return tools
}

// ask, roots and sample are written as multi round-trip handlers
// (SEP-2322): a client on protocol 2026-07-28 gets an input_required result
// and retries, and for older clients mcp-go sends the elicitation/create,
// roots/list or sampling/createMessage request to the client itself and
// calls the handler again with the answer.
func ask(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer := server.ElicitationResponse(req.Params.InputResponses, "ask"); answer != nil {
		return jsonText(answer.ElicitationResponse)
	}
	return server.NewInputRequestBuilder("").Elicit("ask", mcp.ElicitationParams{
		Message:         "Who are you?",
		RequestedSchema: askSchema,
	}).ToolResult(), nil
}

func roots(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer := server.RootsResponse(req.Params.InputResponses, "roots"); answer != nil {
		return jsonText(answer.Roots)
	}
	return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
}

func sample(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if answer := server.SamplingResponse(req.Params.InputResponses, "sample"); answer != nil {
		// A retried call carries the answer as the client sent it: JSON.
		content, err := mcp.ParseSamplingContent(answer.Content)
		if err != nil {
			return nil, err
		}
		if tc, ok := content.(mcp.TextContent); ok {
			return mcp.NewToolResultText(tc.Text), nil
		}
		return jsonText(answer.Content)
	}
	return server.NewInputRequestBuilder("").Sample("sample", mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Say hello.")}},
		MaxTokens: 50,
	}).ToolResult(), nil
}

// progress reports three steps of progress to a call with a progress token.
func progress(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return mcp.NewToolResultText("done"), nil
	}
	// mcp-go writes notifications from a goroutine of its own, so without
	// a pause they may reach the client after the result; a slow job, as
	// real ones are, sends them well before it.
	pause := time.Duration(req.GetFloat("pause_ms", 0) * float64(time.Millisecond))
	work := func() error {
		t := time.NewTimer(pause)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s := server.ServerFromContext(ctx)
	for i := 1; i <= 3; i++ {
		if err := work(); err != nil {
			return nil, err
		}
		err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
			"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i),
		})
		if err != nil {
			return mcp.NewToolResultError("sending progress: " + err.Error()), nil
		}
	}
	if err := work(); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("done"), nil
}

func echoArguments(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return jsonText(req.GetArguments())
}

func jsonText(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// textTool returns a handler that answers with a fixed text.
func textTool(text string) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(text), nil
	}
}

// systemPid is this process's id as the computer sees it where it can
// tell: in a PID namespace of its own, os.Getpid is its number there,
// and /proc, when it is the computer's, says the other in NSpid. A
// sandboxed server has a /proc of its own too, and its own number is all
// it can learn (the started tool tells it apart).
func systemPid() int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return os.Getpid()
	}
	for _, l := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(l, "NSpid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if n, err := strconv.Atoi(f[0]); err == nil {
					return n
				}
			}
		}
	}
	return os.Getpid()
}
