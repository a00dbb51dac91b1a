package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

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
	server := names[0]
	b, done, err := c.backend(ctx, []string{server})
	if err != nil {
		return err
	}
	defer done()
	list, err := b.Tools(ctx, server)
	if err != nil {
		return err
	}
	// The flags of a server mcptray runs (a URL looked at once has none).
	var review *service.Review
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	snap, err := b.Settle(wctx)
	cancel()
	if err != nil {
		snap, err = b.Snapshot(ctx)
	}
	if err == nil {
		if sv, ok := snap.Find(server); ok {
			review = sv.Review
		}
	}
	server = displayName(server)
	if *asJSON {
		// Not indented, and no HTML escaping: schemas come out as the
		// server wrote them, but for insignificant white space and
		// escaped invisible characters.
		if list == nil {
			list = []tools.Tool{}
		}
		return writeJSON(c.Stdout, struct {
			Tools []tools.Tool `json:"tools"`
			// Flags are the tools that give the AI instructions.
			Flags any `json:"flags,omitempty"`
		}{list, flagsOf(review)}, false)
	}
	if len(list) == 0 {
		fmt.Fprintf(c.Stdout, "%s offers no tools.\n", sanitize.Line(server))
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tHINTS\tDESCRIPTION")
	for _, t := range list {
		desc, _, _ := strings.Cut(t.Description, "\n")
		if review.Flagged(t.Name) {
			desc = "⚠ gives the AI instructions (mcptray review " + server + "): " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sanitize.Line(t.Name), hints(t.Hints), sanitize.Line(desc))
	}
	return tw.Flush()
}

// flagsOf are a review's flagged tools, by name, or nil.
func flagsOf(r *service.Review) any {
	if r == nil || len(r.Flags) == 0 {
		return nil
	}
	return r.Flags
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
	b, done, err := c.backend(ctx, []string{args[0]})
	if err != nil {
		return err
	}
	defer done()
	res, err := b.Call(ctx, service.CallRequest{Server: args[0], Tool: args[1], Arguments: arguments})
	if err != nil {
		return err
	}
	printResult(c.Stdout, res)
	if res.IsError {
		return errors.New("the tool reported an error")
	}
	return nil
}

// displayName is how a command names a server it was given: a URL's host,
// or the name.
func displayName(target string) string {
	if u, err := url.Parse(target); err == nil && u.Host != "" && strings.Contains(target, "://") {
		return u.Host
	}
	return target
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
			fmt.Fprintf(w, "[an image, %s, %d bytes in base64]\n", sanitize.Line(c.MIMEType), len(c.Data))
			printed = true
		case mcp.AudioContent:
			fmt.Fprintf(w, "[audio, %s, %d bytes in base64]\n", sanitize.Line(c.MIMEType), len(c.Data))
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
		_ = writeJSON(w, res.StructuredContent, true)
	}
}
