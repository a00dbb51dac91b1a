package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mcptray/mcptray/core/service"
)

func runFolders(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 {
		return usagef("say add, remove or list")
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			return usagef("list takes no path")
		}
		b, done, err := c.backend(ctx, connectNone)
		if err != nil {
			return err
		}
		defer done()
		snap, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		if len(snap.Folders) == 0 {
			fmt.Fprintln(c.Stdout, "No project folders yet. Add one with: mcptray folders add PATH")
		}
		for _, f := range snap.Folders {
			fmt.Fprintln(c.Stdout, f)
		}
		return nil
	case "add", "remove":
		if len(args) != 2 {
			return usagef("name one folder")
		}
		// A full path: the running mcptray has another working folder.
		dir, err := filepath.Abs(args[1])
		if err != nil {
			return fmt.Errorf("finding %s: %w", args[1], err)
		}
		b, done, err := c.backend(ctx, connectNone)
		if err != nil {
			return err
		}
		defer done()
		if args[0] == "add" {
			res, err := b.AddFolder(ctx, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.Stdout, "mcptray now reads .mcp.json, .vscode/mcp.json and .cursor/mcp.json in %s.\n", res.Folder)
			if res.Waiting > 0 {
				fmt.Fprintf(c.Stdout, "%d server(s) there wait for your approval: mcptray list shows them.\n", res.Waiting)
			}
			return nil
		}
		if err := b.RemoveFolder(ctx, dir); err != nil {
			if service.CodeOf(err) == service.NotFound {
				// Not "mcptray list": that lists servers.
				return fmt.Errorf("%s is not one of your project folders; mcptray folders list shows them", dir)
			}
			return err
		}
		fmt.Fprintf(c.Stdout, "mcptray no longer reads the configs in %s.\n", dir)
		return nil
	}
	return usagef("there is no folders command %q; say add, remove or list", args[0])
}
