package cli

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
)

// runGatewaySearch turns the gateway's search mode on or off, or says
// whether it is on: apps then see two tools that find and call the others
// instead of every tool.
func runGatewaySearch(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 {
		r, err := c.rules(ctx)
		if err != nil {
			return err
		}
		if r.Search {
			fmt.Fprintf(c.Stdout, "Search mode is on: apps see %s and %s instead of every tool.\n", gateway.FindTool, gateway.CallTool)
		} else {
			fmt.Fprintln(c.Stdout, "Search mode is off: apps see every tool they may use.")
		}
		return nil
	}
	if len(args) != 1 || (args[0] != "on" && args[0] != "off") {
		return usagef("gateway search takes on or off, not %q", sanitize.Line(args[0]))
	}
	on := args[0] == "on"
	if err := c.changeRules(ctx, func(b backend) error { return b.SetSearch(ctx, on) }); err != nil {
		return err
	}
	if on {
		fmt.Fprintf(c.Stdout, "Search mode is on: apps now see two tools, %s and %s, that find and call the others.\n", gateway.FindTool, gateway.CallTool)
	} else {
		fmt.Fprintln(c.Stdout, "Search mode is off: apps see every tool again.")
	}
	return nil
}
