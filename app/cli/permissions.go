package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// rules returns the person's rules for the gateway, as mcptray holds them.
func (c *cmdContext) rules(ctx context.Context) (service.GatewayRules, error) {
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return service.GatewayRules{}, err
	}
	defer done()
	snap, err := b.Snapshot(ctx)
	return snap.Gateway, err
}

// changeRules changes the person's rules for the gateway through mcptray.
func (c *cmdContext) changeRules(ctx context.Context, change func(backend) error) error {
	b, done, err := c.backend(ctx, connectNone)
	if err != nil {
		return err
	}
	defer done()
	return change(b)
}

// runPermissions shows or sets what the gateway does when an app calls a
// tool: allow, ask or block.
func runPermissions(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 || (len(args) == 1 && args[0] == "list") {
		r, err := c.rules(ctx)
		if err != nil {
			return err
		}
		if len(r.Permissions) == 0 {
			fmt.Fprintln(c.Stdout, "No tool has a permission of its own: tools their server says only read are allowed, the others ask.")
		}
		for _, tool := range slices.Sorted(maps.Keys(r.Permissions)) {
			fmt.Fprintf(c.Stdout, "%s: %s\n", sanitize.Line(tool), r.Permissions[tool])
		}
		for _, h := range r.Hidden {
			fmt.Fprintf(c.Stdout, "%s: hidden\n", sanitize.Line(h))
		}
		return nil
	}
	if len(args) != 2 {
		return usagef("permissions takes allow, ask, block or reset and one tool")
	}
	p, tool := service.Permission(args[0]), args[1]
	if !p.Valid() && args[0] != "reset" {
		return usagef("%q is not allow, ask, block or reset", sanitize.Line(args[0]))
	}
	if !strings.HasPrefix(tool, "mcp__") {
		return usagef("a tool is named as apps see it, mcp__SERVER__TOOL (mcptray tools SERVER --json shows each one's qualifiedName)")
	}
	if args[0] == "reset" {
		p = ""
	}
	err := c.changeRules(ctx, func(b backend) error { return b.SetPermission(ctx, tool, p) })
	if err != nil {
		return err
	}
	if p == "" {
		fmt.Fprintf(c.Stdout, "%s: back to the default (allowed when its server says it only reads, asked otherwise).\n", sanitize.Line(tool))
	} else {
		fmt.Fprintf(c.Stdout, "%s: %s.\n", sanitize.Line(tool), p)
	}
	return nil
}

// runHide hides a tool, or every tool of a server, from the apps.
func runHide(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("hide takes one tool (mcp__SERVER__TOOL) or server")
	}
	err := c.changeRules(ctx, func(b backend) error { return b.SetHidden(ctx, args[0], true) })
	if err == nil {
		fmt.Fprintf(c.Stdout, "Apps no longer see %s.\n", sanitize.Line(args[0]))
	}
	return err
}

// runUnhide offers a hidden tool or server to the apps again.
func runUnhide(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) != 1 {
		return usagef("unhide takes one tool (mcp__SERVER__TOOL) or server")
	}
	err := c.changeRules(ctx, func(b backend) error { return b.SetHidden(ctx, args[0], false) })
	if err == nil {
		fmt.Fprintf(c.Stdout, "Apps see %s again.\n", sanitize.Line(args[0]))
	}
	return err
}
