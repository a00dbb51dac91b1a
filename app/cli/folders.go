package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcptray/mcptray/core/config"
)

func runFolders(_ context.Context, c *cmdContext, args []string) error {
	if len(args) == 0 {
		return usagef("say add, remove or list")
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			return usagef("list takes no path")
		}
		u, err := config.ReadUserFile(c.paths.UserFile())
		if err != nil {
			return err
		}
		if len(u.Folders) == 0 {
			fmt.Fprintln(c.Stdout, "No project folders yet. Add one with: mcptray folders add PATH")
		}
		for _, f := range u.Folders {
			fmt.Fprintln(c.Stdout, f)
		}
		return nil
	case "add", "remove":
		if len(args) != 2 {
			return usagef("name one folder")
		}
		dir, err := filepath.Abs(args[1])
		if err != nil {
			return fmt.Errorf("finding %s: %w", args[1], err)
		}
		if args[0] == "add" {
			return c.addFolder(dir)
		}
		return c.removeFolder(dir)
	}
	return usagef("there is no folders command %q; say add, remove or list", args[0])
}

func (c *cmdContext) addFolder(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s cannot be added: %w", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is a file; add the folder it is in", dir)
	}
	err = config.ModifyUserFile(c.paths.UserFile(), func(u *config.UserFile) error {
		if slices.Contains(u.Folders, dir) {
			return fmt.Errorf("%s is already in your folders", dir)
		}
		u.Folders = append(u.Folders, dir)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "mcptray now reads .mcp.json, .vscode/mcp.json and .cursor/mcp.json in %s.\n", dir)
	set := c.loader.Load()
	n := 0
	for _, e := range set.Servers {
		if e.Origin.Folder == dir && e.Approval == config.Undecided {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(c.Stdout, "%d server(s) there wait for your approval: mcptray list shows them.\n", n)
	}
	return nil
}

func (c *cmdContext) removeFolder(dir string) error {
	err := config.ModifyUserFile(c.paths.UserFile(), func(u *config.UserFile) error {
		i := slices.Index(u.Folders, dir)
		if i < 0 {
			return fmt.Errorf("%s is not in your folders; mcptray folders list shows them", dir)
		}
		u.Folders = slices.Delete(u.Folders, i, i+1)
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "mcptray no longer reads the configs in %s.\n", dir)
	return nil
}
