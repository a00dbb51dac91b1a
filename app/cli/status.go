package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// statusWait bounds how long status waits for servers to connect: a little
// more than the connect timeout, so that slow servers report their own
// timeout rather than being cut short.
const statusWait = service.DefaultConnectTimeout + 5*time.Second

func runStatus(ctx context.Context, c *cmdContext, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := parseAnywhere(fs, args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("status takes no names")
	}
	b, done, err := c.backend(ctx, connectAll)
	if err != nil {
		return err
	}
	defer done()
	wctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	snap, err := b.Settle(wctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if snap, err = b.Snapshot(ctx); err != nil {
			return err
		}
	}
	var shown []service.Server
	for _, s := range snap.Servers {
		if s.Suppressed == "" {
			shown = append(shown, s)
		}
	}
	if *asJSON {
		type server struct {
			Name      string `json:"name"`
			Scope     string `json:"scope"`
			Transport string `json:"transport"`
			State     string `json:"state"`
			Since     string `json:"since"`
			Error     string `json:"error,omitempty"`
			Fix       string `json:"fix,omitempty"`
			Tools     int    `json:"tools"`
			Held      string `json:"held,omitempty"`
			Flagged   string `json:"flagged,omitempty"`
		}
		out := struct {
			Servers []server `json:"servers"`
			Paused  bool     `json:"paused,omitempty"`
		}{Servers: []server{}, Paused: snap.Paused}
		for _, s := range shown {
			out.Servers = append(out.Servers, server{
				Name: s.Name, Scope: s.Scope.String(), Transport: string(s.Transport), State: s.State.String(),
				Since: s.Since.UTC().Format(time.RFC3339), Error: s.Reason, Fix: fixText(s), Tools: len(s.Tools),
				Held: s.Review.Summary(), Flagged: s.Review.FlaggedWords(),
			})
		}
		if err := writeJSON(c.Stdout, out, true); err != nil {
			return err
		}
		return notConnected(shown)
	}
	if snap.Paused {
		fmt.Fprintln(c.Stdout, "mcptray is paused: no server runs until you resume it from the tray.")
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tWHY")
	for _, s := range shown {
		why := s.Reason
		if s.State == service.Connected {
			why = joinWords(s.Review.Summary(), s.Review.FlaggedWords())
		}
		if f := fixText(s); f != "" && s.State != service.Connected {
			why += " — " + f
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", sanitize.Line(s.Name), s.State, len(s.Tools), c.home(sanitize.Line(why)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printHeld(c.Stdout, shown)
	return notConnected(shown)
}

// joinWords joins the words that are not "" with "; ".
func joinWords(words ...string) string {
	var out []string
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return strings.Join(out, "; ")
}

// fixText is what a person at a terminal can do about a server.
func fixText(s service.Server) string {
	switch {
	case s.Fix.Hint != "":
		return s.Fix.Hint
	case s.Fix.Action == service.ApproveAction:
		return "mcptray approve " + sanitize.Line(s.Name)
	case s.Fix.Action == service.SignInAction:
		return "mcptray login " + sanitize.Line(s.Name)
	case s.Fix.Action == service.RetryAction:
		return "mcptray retry " + sanitize.Line(s.Name)
	}
	return ""
}

// notConnected fails status when a server that should run is not
// connected, so that scripts can rely on its exit code.
func notConnected(servers []service.Server) error {
	n := 0
	for _, s := range servers {
		if s.Runnable && s.State != service.Connected {
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case 1:
		return errors.New("1 server is not connected")
	}
	return fmt.Errorf("%d servers are not connected", n)
}
