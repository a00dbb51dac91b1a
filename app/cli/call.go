package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/tools"
)

// connectOne connects to the one server a command names and returns the
// manager (to Close) and the server's name in it.
func (c *cmdContext) connectOne(ctx context.Context, name string) (*conn.Manager, string, error) {
	set, server, err := c.target(name)
	if err != nil {
		return nil, "", err
	}
	m := c.newManager()
	if err := m.Apply(set); err != nil {
		m.Close()
		return nil, "", err
	}
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	if err := m.WaitSettled(wctx); err != nil {
		m.Close()
		return nil, "", fmt.Errorf("connecting to %s: %w", sanitize.Line(server), err)
	}
	if info, _ := m.Snapshot().Find(server); info.Status.State != conn.Connected {
		m.Close()
		return nil, "", &conn.NotConnectedError{Server: server, Status: info.Status}
	}
	return m, server, nil
}

func runTools(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return usagef("name one server, or give a URL")
	}
	m, server, err := c.connectOne(ctx, names[0])
	if err != nil {
		return err
	}
	defer m.Close()
	list, err := m.Tools(server)
	if err != nil {
		return err
	}
	if *asJSON {
		// Not indented, and no HTML escaping: schemas come out as the
		// server wrote them, but for insignificant white space.
		enc := json.NewEncoder(c.Stdout)
		enc.SetEscapeHTML(false)
		if list == nil {
			list = []tools.Tool{}
		}
		return enc.Encode(struct {
			Tools []tools.Tool `json:"tools"`
		}{list})
	}
	if len(list) == 0 {
		fmt.Fprintf(c.Stdout, "%s offers no tools.\n", sanitize.Line(server))
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tHINTS\tDESCRIPTION")
	for _, t := range list {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sanitize.Line(t.Name), hints(t.Hints), sanitize.Line(desc))
	}
	return tw.Flush()
}

func hints(h tools.Hints) string {
	var out []string
	if h.SafeToRunConcurrently() {
		out = append(out, "read-only")
	}
	if h.NeedsReview() {
		out = append(out, "may change things")
	}
	return strings.Join(out, ", ")
}

func runCall(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) < 2 || len(args) > 3 {
		return usagef("name a server (or a URL), a tool, and optionally its arguments as a JSON object")
	}
	var arguments json.RawMessage
	if len(args) == 3 {
		arguments = json.RawMessage(args[2])
		var obj map[string]any
		if err := json.Unmarshal(arguments, &obj); err != nil || obj == nil {
			return usagef(`the arguments must be a JSON object, like '{"path": "/tmp"}'`)
		}
	}
	m, server, err := c.connectOne(ctx, args[0])
	if err != nil {
		return err
	}
	defer m.Close()
	res, err := m.CallTool(ctx, server, args[1], arguments)
	if err != nil {
		return err
	}
	printResult(c.Stdout, res)
	if res.IsError {
		return errors.New("the tool reported an error")
	}
	return nil
}

// parseInterspersed parses args with fs, taking flags after the other
// arguments too (mcptray tools SERVER --json, as the synopsis has it), and
// returns the other arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// printResult prints a tool's result: its text as it is, anything else as a
// one-line description, and structured content as JSON when there is no
// text.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	printed := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			fmt.Fprintln(w, c.Text)
			printed = true
		case mcp.ImageContent:
			fmt.Fprintf(w, "[an image, %s, %d bytes in base64]\n", c.MIMEType, len(c.Data))
			printed = true
		case mcp.AudioContent:
			fmt.Fprintf(w, "[audio, %s, %d bytes in base64]\n", c.MIMEType, len(c.Data))
			printed = true
		case mcp.ResourceLink:
			fmt.Fprintf(w, "[a link to %s]\n", sanitize.Line(c.URI))
			printed = true
		case mcp.EmbeddedResource:
			if t, ok := c.Resource.(mcp.TextResourceContents); ok {
				fmt.Fprintln(w, t.Text)
			} else {
				fmt.Fprintln(w, "[an embedded resource]")
			}
			printed = true
		}
	}
	if !printed && res.StructuredContent != nil {
		b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(w, string(b))
	}
}
