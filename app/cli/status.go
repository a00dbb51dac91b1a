package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sanitize"
)

// statusWait bounds how long status waits for servers to connect: a little
// more than the connect timeout, so that slow servers report their own
// timeout rather than being cut short.
const statusWait = conn.DefaultConnectTimeout + 5*time.Second

func runStatus(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("status takes no names")
	}
	m := c.newManager()
	defer m.Close()
	if err := m.Apply(c.loader.Load()); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	if err := m.WaitSettled(wctx); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	snap := m.Snapshot()
	if *asJSON {
		type server struct {
			Name      string `json:"name"`
			Scope     string `json:"scope"`
			Transport string `json:"transport"`
			State     string `json:"state"`
			Since     string `json:"since"`
			Error     string `json:"error,omitempty"`
			Tools     int    `json:"tools"`
		}
		out := struct {
			Servers []server `json:"servers"`
		}{Servers: []server{}}
		for _, s := range snap.Servers {
			out.Servers = append(out.Servers, server{
				Name: s.Name, Scope: s.Scope.String(), Transport: string(s.Transport), State: s.Status.State.String(),
				Since: s.Status.Since.UTC().Format(time.RFC3339), Error: s.Status.Err, Tools: len(s.Tools),
			})
		}
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tLAST ERROR")
	for _, s := range snap.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", sanitize.Line(s.Name), s.Status.State, len(s.Tools), c.home(s.Status.Err))
	}
	return tw.Flush()
}
